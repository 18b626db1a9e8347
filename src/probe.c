// SPDX-License-Identifier: GPL-2.0
/* Kernel feature probes, by name from the running kernel's BTF so a kernel
 * newer than our headers (BPF_MAP_TYPE_RHASH) needs no rebuild. */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "probe.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

long btf_enum_value(const struct btf *btf, const char *enum_name, const char *name)
{
	int id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			return e->val;
	return -1;
}

static struct btf *vmlinux_btf(void)
{
	static struct btf *btf;

	if (!btf)
		btf = btf__load_vmlinux_btf();
	return libbpf_get_error(btf) ? NULL : btf;
}

long kernel_map_type(const char *suffix)
{
	char name[64];
	struct btf *btf = vmlinux_btf();

	if (!btf)
		return -1;
	snprintf(name, sizeof(name), "BPF_MAP_TYPE_%s", suffix);
	return btf_enum_value(btf, "bpf_map_type", name);
}

bool kernel_has_func(const char *name)
{
	struct btf *btf = vmlinux_btf();

	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
}

static bool cap_effective(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

bool have_bpf_caps(const char **missing)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data)) {
		*missing = "CAP_BPF";
		return false;
	}
	if (cap_effective(data, CAP_SYS_ADMIN))
		return true;
	*missing = !cap_effective(data, CAP_BPF) ? "CAP_BPF" :
		   !cap_effective(data, CAP_PERFMON) ? "CAP_PERFMON" :
		   !cap_effective(data, CAP_NET_ADMIN) ? "CAP_NET_ADMIN" : NULL;
	return !*missing;
}

const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0])
		uname(&u);
	return u.release;
}
