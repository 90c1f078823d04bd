// The kernel's clock discipline (adjtimex), which Glibc's Swift module leaves out: whether the
// clock is synchronised and its estimated error (CaptureSensors' HostClock).
#include <sys/timex.h>
