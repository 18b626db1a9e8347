"""Boots as jobs of LAVA, the kernel labs' engine: the job text, the guest under
LAVA's test shell, the job log read back, lava-run and a server's REST API."""
