"""A boot as a LAVA job: deploy the kernel and mapbench's initramfs (LAVA
adds its test overlay to the ramdisk), boot it, and run the boot's job in
LAVA's test shell. One job text per device kind: a QEMU device (the same
machine and clock as a local boot) or a physical x86 box booted over iPXE.
The text is checked with LAVA's own job schema, as a server does on submit."""
import math

import yaml

# What the guest's shell prints when it waits (lab/guest.py's init sets it).
PROMPT = "mapbench-guest# "


# The test definition's one step: run the boot's job (the initramfs has it).
JOB_STEP = "/mapbench-job"


# What LAVA waits for once the kernel starts: the guest's first line (the
# kernel's banner, LAVA's default, is hidden by quiet, which a local boot has).
STARTED = "MAPBENCH-GUEST"


def timeout(seconds):
    return {"minutes": max(1, math.ceil(seconds / 60))}


def test_action(run_seconds):
    """LAVA's test shell running the boot's job, its definition inline."""
    return {"test": {
        "timeout": timeout(run_seconds),
        "definitions": [{
            "from": "inline", "name": "mapbench", "path": "inline/mapbench.yaml",
            "repository": {
                "metadata": {"format": "Lava-Test Test Definition 1.0", "name": "mapbench",
                             "description": "mapbench runs; results base64 between "
                                            "MAPBENCH-B64 markers, figures as test cases"},
                "run": {"steps": [JOB_STEP]},
            },
        }],
    }}


def common(name, boot_seconds, run_seconds, priority):
    # the job's limit: the stages' with a margin for deploying
    return {"job_name": name[:200], "priority": priority, "visibility": "public",
            "timeouts": {"job": timeout(boot_seconds + run_seconds + 300),
                         "action": timeout(boot_seconds + run_seconds)}}


def qemu_job(name, kernel_url, ramdisk_url, cmdline, machine, kvm, memory_mib, boot_seconds,
             run_seconds, priority="medium"):
    """A job for LAVA's qemu device type. machine: QEMU's options for the
    clock and CPUs (guest/qemu.py's, as a local boot has them), each option
    with its value; kvm: under KVM (the device type's own options), else TCG."""
    job = common(name, boot_seconds, run_seconds, priority)
    job["device_type"] = "qemu"
    job["context"] = {"arch": "amd64", "no_kvm": not kvm, "kernel_start_message": STARTED,
                      "memory": memory_mib, "extra_options": machine}
    job["actions"] = [
        {"deploy": {
            "to": "tmpfs", "os": "oe", "timeout": timeout(300),
            "images": {
                "kernel": {"url": kernel_url, "image_arg": f"-kernel {{kernel}} -append \"{cmdline}\""},
                "ramdisk": {"url": ramdisk_url, "image_arg": "-initrd {ramdisk}",
                            "format": "cpio.newc", "compression": "gz",
                            "overlays": {"lava": True}},
            }}},
        {"boot": {"method": "qemu", "media": "tmpfs", "timeout": timeout(boot_seconds),
                  "prompts": [PROMPT]}},
        test_action(run_seconds),
    ]
    return job


def ipxe_job(name, device_type, kernel_url, ramdisk_url, cmdline, boot_seconds, run_seconds,
             priority="medium"):
    """A job for a physical x86 device type booted by iPXE: the kernel and
    ramdisk over TFTP, LAVA's overlay in the ramdisk, the device's console."""
    job = common(name, boot_seconds, run_seconds, priority)
    job["device_type"] = device_type
    job["context"] = {"extra_kernel_args": cmdline, "kernel_start_message": STARTED}
    job["actions"] = [
        {"deploy": {
            "to": "tftp", "os": "oe", "timeout": timeout(300),
            "kernel": {"url": kernel_url},
            "ramdisk": {"url": ramdisk_url, "compression": "gz"}}},
        {"boot": {"method": "ipxe", "commands": "ramdisk", "timeout": timeout(boot_seconds),
                  "prompts": [PROMPT]}},
        test_action(run_seconds),
    ]
    return job


def text(job):
    """The job as LAVA takes it: YAML, in the order written."""
    return yaml.safe_dump(job, sort_keys=False, default_flow_style=False, width=1000)


def check(job):
    """None if LAVA's own schema takes the job, else its complaint in one line."""
    from lava_common.schemas import validate
    from voluptuous import Invalid
    try:
        validate(job, strict=True, extra_context_variables=[])
    except Invalid as e:
        return str(e)
    return None
