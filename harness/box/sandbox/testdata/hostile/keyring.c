/* Leaves a message in its user's keyring, and reads one left there before: the kernel
 * keeps a user's keyrings after its processes end, so a sandbox user lent to one case and
 * then another would carry messages between them. The box refuses the keyring system
 * calls: it prints "add_key: refused" and "keyctl: refused". */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KEY_SPEC_USER_KEYRING -4
#define KEYCTL_GET_KEYRING_ID 0
#define KEYCTL_INVALIDATE 21

int main(void) {
	long id = syscall(SYS_add_key, "user", "gauntlet-hostile", "the answers", 11, KEY_SPEC_USER_KEYRING);
	if (id < 0 && errno == EPERM)
		printf("add_key: refused\n");
	else
		printf("add_key: %ld (%s)\n", id, id < 0 ? strerror(errno) : "stored");
	/* A test that fails leaves nothing on the machine. */
	if (id >= 0)
		syscall(SYS_keyctl, KEYCTL_INVALIDATE, id);
	long ring = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0);
	if (ring < 0 && errno == EPERM)
		printf("keyctl: refused\n");
	else
		printf("keyctl: %ld (%s)\n", ring, ring < 0 ? strerror(errno) : "reached");
	return 0;
}
