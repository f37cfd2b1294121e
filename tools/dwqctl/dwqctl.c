// SPDX-License-Identifier: GPL-2.0
/*
 * dwqctl - drive dwq, the delayed work queue, from the command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define DWQ_DEV "/dev/dwq"
#define DWQ_PARAMS "/sys/module/dwq/parameters"

static int usage(FILE *f)
{
	fprintf(f,
		"usage: dwqctl COMMAND [ARGS]\n"
		"\n"
		"commands:\n"
		"  demo     show dwq loaded and working, for a person\n"
		"  help     this text\n");
	return f == stdout ? 0 : 2;
}

/* Print one module parameter as "name=value". */
static void print_param(const char *name)
{
	char path[512], val[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", DWQ_PARAMS, name);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(val, sizeof(val), f)) {
		val[strcspn(val, "\n")] = '\0';
		printf("  %s=%s\n", name, val);
	}
	fclose(f);
}

static int cmd_demo(void)
{
	struct dirent **names;
	struct stat st;
	int i, n;

	if (stat(DWQ_DEV, &st)) {
		fprintf(stderr, "dwqctl: %s: %s (is dwq.ko loaded?)\n", DWQ_DEV,
			strerror(errno));
		return 1;
	}
	printf("dwq is loaded: %s is a character device %u:%u, mode %04o\n",
	       DWQ_DEV, major(st.st_rdev), minor(st.st_rdev),
	       st.st_mode & 07777);
	n = scandir(DWQ_PARAMS, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "dwqctl: %s: %s\n", DWQ_PARAMS, strerror(errno));
		return 1;
	}
	printf("module parameters:\n");
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			print_param(names[i]->d_name);
		free(names[i]);
	}
	free(names);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "demo"))
		return cmd_demo();
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h"))
		return usage(stdout);
	fprintf(stderr, "dwqctl: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
