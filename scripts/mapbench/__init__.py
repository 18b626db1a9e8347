"""mapbench's analysis side, in the order data flows through it:

  model       what a run is: configuration, metrics, units, clock
  kernel_log  the kernel selftests bench's text output, read as runs
  results     result files and sets: loading, schema upgrades, pooling, grouping
  stats       deltas, intervals, tests, minimum detectable effects (pure)
  verdict     the one policy and verdict engine every tool judges with
  noise_floor a machine's A/A deltas, shown beside later ones
  history     result sets over commits in SQLite or PostgreSQL
  changepoints  E-divisive change points of a series (pure)
  history_site  a history as a static web site (templates/)
  charts      gnuplot: the runner, a history's trend, sparklines
  kcidb       a set as KernelCI's report data (pure)
  output      tables, --json rows and notes, the same in every tool
  cli         exit statuses, one-line errors, the argument parser
  commands/   one module per tool; scripts/NAME is its entry point

and beside them what runs benchmarks: suites (suite files), peer (the
kernel's bench run beside ours), kernelsrc (kernel sources from Debian).
"""
