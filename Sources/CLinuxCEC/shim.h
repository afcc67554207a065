#ifndef VITRINE_CLINUXCEC_SHIM_H
#define VITRINE_CLINUXCEC_SHIM_H
#include <linux/cec.h>
#include <linux/cec-funcs.h>
#include <sys/ioctl.h>

// The request numbers are _IOWR(...) macros, which Swift cannot import:
// one inline function per ioctl Vitrine makes. Each returns ioctl's result
// (-1 with errno set on failure).
static inline int vitrine_cec_get_caps(int fd, struct cec_caps *caps) { return ioctl(fd, CEC_ADAP_G_CAPS, caps); }
static inline int vitrine_cec_get_phys_addr(int fd, __u16 *address) { return ioctl(fd, CEC_ADAP_G_PHYS_ADDR, address); }
static inline int vitrine_cec_get_log_addrs(int fd, struct cec_log_addrs *addresses) { return ioctl(fd, CEC_ADAP_G_LOG_ADDRS, addresses); }
static inline int vitrine_cec_set_log_addrs(int fd, struct cec_log_addrs *addresses) { return ioctl(fd, CEC_ADAP_S_LOG_ADDRS, addresses); }
static inline int vitrine_cec_get_connector_info(int fd, struct cec_connector_info *info) { return ioctl(fd, CEC_ADAP_G_CONNECTOR_INFO, info); }
static inline int vitrine_cec_transmit(int fd, struct cec_msg *message) { return ioctl(fd, CEC_TRANSMIT, message); }
#endif
