/* SPDX-License-Identifier: GPL-2.0 */
/* The part of QEMU's TCG plugin API (version 4, QEMU 10.0) the model uses,
 * declared from QEMU's documentation: Debian ships QEMU without its
 * qemu-plugin.h. QEMU resolves these symbols in the plugin at load time, and
 * GLib's, whose arrays the register and memory reads fill (QEMU links GLib). */
#ifndef MAPBENCH_QEMU_PLUGIN_API_H
#define MAPBENCH_QEMU_PLUGIN_API_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* GLib's byte and plain arrays: their public fields come first. */
typedef struct {
	uint8_t *data;
	unsigned int len;
} GByteArray;
typedef struct {
	char *data;
	unsigned int len;
} GArray;
GByteArray *g_byte_array_new(void);
GByteArray *g_byte_array_set_size(GByteArray *array, unsigned int length);
uint8_t *g_byte_array_free(GByteArray *array, int free_segment);
char *g_array_free(GArray *array, int free_segment);

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_hwaddr;
struct qemu_plugin_scoreboard;
struct qemu_plugin_register;

typedef struct {
	struct qemu_plugin_register *handle;
	const char *name;
	const char *feature;
} qemu_plugin_reg_descriptor;

typedef struct {
	struct qemu_plugin_scoreboard *score;
	size_t offset;
} qemu_plugin_u64;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
	QEMU_PLUGIN_INLINE_STORE_U64,
};

enum qemu_plugin_cond {
	QEMU_PLUGIN_COND_NEVER,
	QEMU_PLUGIN_COND_ALWAYS,
	QEMU_PLUGIN_COND_EQ,
	QEMU_PLUGIN_COND_NE,
	QEMU_PLUGIN_COND_LT,
	QEMU_PLUGIN_COND_LE,
	QEMU_PLUGIN_COND_GT,
	QEMU_PLUGIN_COND_GE,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
/* cb runs only where entry (of the vCPU) compares to imm as cond says. */
void qemu_plugin_register_vcpu_tb_exec_cond_cb(struct qemu_plugin_tb *tb,
					       qemu_plugin_vcpu_udata_cb_t cb,
					       enum qemu_plugin_cb_flags flags,
					       enum qemu_plugin_cond cond, qemu_plugin_u64 entry,
					       uint64_t imm, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(struct qemu_plugin_tb *tb,
						       enum qemu_plugin_op op,
						       qemu_plugin_u64 entry, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw, void *userdata);
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
size_t qemu_plugin_insn_data(const struct qemu_plugin_insn *insn, void *dest, size_t len);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

enum qemu_plugin_mem_value_type {
	QEMU_PLUGIN_MEM_VALUE_U8,
	QEMU_PLUGIN_MEM_VALUE_U16,
	QEMU_PLUGIN_MEM_VALUE_U32,
	QEMU_PLUGIN_MEM_VALUE_U64,
	QEMU_PLUGIN_MEM_VALUE_U128,
};

typedef struct {
	enum qemu_plugin_mem_value_type type;
	union {
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;
		struct {
			uint64_t low, high;
		} u128;
	} data;
} qemu_plugin_mem_value;

unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
/* The value a load loaded or a store stored (in a memory callback). */
qemu_plugin_mem_value qemu_plugin_mem_get_value(qemu_plugin_meminfo_t info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);

struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(size_t element_size);
uint64_t qemu_plugin_u64_get(qemu_plugin_u64 entry, unsigned int vcpu_index);
void qemu_plugin_u64_set(qemu_plugin_u64 entry, unsigned int vcpu_index, uint64_t v);

/* In vCPU context (a callback); registers only in one registered with R_REGS. */
GArray *qemu_plugin_get_registers(void);
int qemu_plugin_read_register(struct qemu_plugin_register *handle, GByteArray *buf);
bool qemu_plugin_read_memory_vaddr(uint64_t addr, GByteArray *data, size_t len);

void qemu_plugin_outs(const char *string);

#endif
