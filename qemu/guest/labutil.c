// SPDX-License-Identifier: GPL-2.0
/*
 * labutil - small helpers for the guest, where a shell cannot do the job exactly.
 *
 *   labutil write FILE STRING   one write(2) of STRING (no newline added); prints
 *                               OK or the errno name (EINVAL, EOPNOTSUPP, ...)
 *   labutil read FILE           one read(2); prints the content or the errno name
 *   labutil poweroff            sync and power the machine off (ACPI)
 *
 * write/read exit 0 whatever the outcome: the printed word is the result.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

#include "errname.h"

static int do_write(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 0;
	}
	n = write(fd, str, strlen(str));
	if (n < 0)
		printf("%s\n", errno_name(errno));
	else if ((size_t)n != strlen(str))
		printf("SHORT %zd\n", n);
	else
		printf("OK\n");
	close(fd);
	return 0;
}

static int do_read(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 0;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		printf("%s\n", errno_name(errno));
	} else {
		buf[n] = '\0';
		fputs(buf, stdout);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write"))
		return do_write(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "read"))
		return do_read(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "poweroff")) {
		sync();
		reboot(RB_POWER_OFF);
		perror("reboot");
		return 1;
	}
	fprintf(stderr, "usage: labutil write FILE STRING | read FILE | poweroff\n");
	return 2;
}
