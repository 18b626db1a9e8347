"""mapbench's analysis side, in the order data flows through it:

  contracts   what ./bench declares (build/contracts.json): line shapes, kernel files
  model       what a run is: configuration, metrics, units, clock
  kernel_log  the kernel selftests bench's text output, read as runs
  results     result files and sets: loading, schema upgrades, pooling, grouping
  stats       deltas, intervals, tests, minimum detectable effects (pure)
  verdict     the one policy and verdict engine every tool judges with
  where       which function a change moved (profiles, perf), for verdicts
  noise_floor a machine's A/A deltas, shown beside later ones
  history     result sets over commits in SQLite or PostgreSQL
  changepoints  E-divisive change points of a series (pure)
  history_site  a history as a static web site (templates/)
  charts      gnuplot: the runner, a history's trend, sparklines
  kcidb       a set as KernelCI's report data (pure)
  styles/     report's tables, one module per kernel tool's table
  output      tables, --json rows and notes, the same in every tool
  cli         exit statuses, one-line errors, the argument parser, cli.call
  commands/   one module per tool; scripts/NAME is its entry point

and beside them what runs benchmarks: suites (suite files), peer (the
kernel's bench, built from a tree and run beside ours), kernelsrc (kernel sources from Debian),
debian (Debian packages through a private apt list), guest/ (QEMU guests:
initramfs, command line, boots), lab/ (boots as LAVA jobs), cachemodel/
(the cache model's wing: machines, QEMU 10, counts, calibration), paths.
"""
