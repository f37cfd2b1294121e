// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-test - the user-space integration tests of /dev/dwq, in TAP 13.
 *
 * usage: dwq-test [-v] [-l] [--dev PATH] [NAME|GLOB...]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "dwqt.h"

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: dwq-test [-v] [-l] [--dev PATH] [NAME|GLOB...]\n"
		"\n"
		"Runs the cases whose names contain NAME or match GLOB (all\n"
		"by default), each in a child process, and prints TAP 13.\n"
		"\n"
		"  -v, --verbose   print the notes of passing cases too\n"
		"  -l, --list      list the selected cases, run nothing\n"
		"  --dev PATH      the device (default /dev/dwq)\n"
		"\n"
		"Exit status: 0 if no case failed, 1 otherwise, 2 on bad usage.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "list", no_argument, NULL, 'l' },
		{ "dev", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool list = false;
	int c;

	while ((c = getopt_long(argc, argv, "vlh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			t_verbose = true;
			break;
		case 'l':
			list = true;
			break;
		case 'd':
			dwqt_dev = optarg;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		default:
			print_help(stderr);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return t_run(argv + optind, argc - optind, list);
}
