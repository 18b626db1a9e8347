"""suite list, show and check: the suites, a suite's configurations and
time here, and suite files checked with ./bench --dry-run."""
from ...suites import SUITES, configurations, fmt_time, load_suite
from .runs import SETUP_S, dry_run_error

def cmd_list(args):
    for p in sorted(SUITES.glob("*.json")):
        s = load_suite(p.stem)
        print(f"{p.stem:15} {s['description']}")
    return 0


def estimate(suite, n_configs, runs):
    return n_configs * runs * (suite["warmup"] + suite["duration"] + SETUP_S)


def cmd_show(args):
    suite = load_suite(args.suite)
    configs = configurations(suite)
    runs = args.runs or suite["runs"]
    print(f"{suite['name']}: {suite['description']}")
    print(f"{len(configs)} configurations x {runs} runs = {len(configs) * runs} runs, "
          f"-w {suite['warmup']} -d {suite['duration']}; about "
          f"{fmt_time(estimate(suite, len(configs), runs))} here (set-up of large maps adds more)")
    for cid, argv in configs:
        print(f"  {cid:45} ./bench {' '.join(argv)}")
    return 0


def cmd_check(args):
    names = args.suites or sorted(p.stem for p in SUITES.glob("*.json"))
    bad = 0
    for name in names:
        suite = load_suite(name)
        for cid, argv in configurations(suite):
            if (error := dry_run_error(argv)):
                bad += 1
                print(f"{name}: {cid}: {error}")
        print(f"{name}: {len(configurations(suite))} configurations checked")
    return 1 if bad else 0
