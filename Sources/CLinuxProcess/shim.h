// Process interfaces Glibc's Swift module leaves out, declared here without
// _GNU_SOURCE (which would give its types other definitions than Glibc's
// module has): prctl, a clone flag, memfd_create and its seals, and
// posix_spawn's closefrom (glibc 2.34 and later).
#include <sys/prctl.h>
#include <spawn.h>
#include <linux/sched.h>

static const unsigned long vitrine_clone_thread = CLONE_THREAD;
static const int vitrine_pr_set_name = PR_SET_NAME;

// memfd_create(2) flags and fcntl(2) file seals (linux/memfd.h, linux/fcntl.h,
// whose struct flock would clash with glibc's).
static const unsigned int vitrine_mfd_cloexec = 0x0001U;
static const unsigned int vitrine_mfd_allow_sealing = 0x0002U;
static const int vitrine_f_add_seals = 1024 + 9;
static const int vitrine_f_seal_seal = 0x0001;
static const int vitrine_f_seal_shrink = 0x0002;
static const int vitrine_f_seal_grow = 0x0004;
static const int vitrine_f_seal_write = 0x0008;

extern int memfd_create(const char *name, unsigned int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

static inline int vitrine_set_parent_death_signal(int signal) { return prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0); }
