// The kernel's clock discipline (adjtimex), which Glibc's Swift module leaves out: whether the
// clock is synchronised, for `capture doctor --system`.
#include <sys/timex.h>
