// libseccomp: seccomp_init, seccomp_rule_add_array, seccomp_syscall_resolve_name,
// seccomp_load, seccomp_release. It reports errors as negative errno values,
// which VitrineSeccomp turns into SeccompError once; VitrineSeccomp is its only caller.
#include <seccomp.h>

// The action macros take arguments, which Swift does not import.
static inline uint32_t vitrine_seccomp_errno(uint32_t code) { return SCMP_ACT_ERRNO(code); }
static inline uint32_t vitrine_seccomp_kill_process(void) { return SCMP_ACT_KILL_PROCESS; }
static inline uint32_t vitrine_seccomp_allow(void) { return SCMP_ACT_ALLOW; }
