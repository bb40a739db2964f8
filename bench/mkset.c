/*
 * Writes a set of L Gaussian inputs in dimension d as a NumPy .npy file
 * (float64, C order), for the user-data benchmark (bench/userdata.sh):
 * entries N(0, s^2) with s = 1/sqrt(d), so |x| is about 1 as in the
 * feature-map benchmark, from the stream (seed, 0, 0, 0).
 *
 *   mkset FILE.npy L d seed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <gsl/gsl_randist.h>

#include "base/rng.h"

int main(int argc, char **argv)
{
	char dict[128], pad[128];
	size_t L, k, hlen;
	int d;
	unsigned long seed;
	gsl_rng *r;
	FILE *f;

	if (argc != 5 || (L = strtoul(argv[2], NULL, 10)) < 1 ||
	    (d = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: mkset FILE.npy L d seed\n");
		return 2;
	}
	seed = strtoul(argv[4], NULL, 10);
	snprintf(dict, sizeof(dict),
		 "{'descr': '<f8', 'fortran_order': False, 'shape': (%zu, %d), }",
		 L, d);
	/* magic (6), version (2), length (2), dict, blanks, newline: 64k bytes */
	hlen = strlen(dict) + 1;
	while ((10 + hlen) % 64)
		hlen++;
	memset(pad, ' ', sizeof(pad));
	f = fopen(argv[1], "wb");
	r = rfx_rng_alloc_stream(seed, 0, 0, 0);
	if (!f || !r) {
		perror(argv[1]);
		return 1;
	}
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc((int)(hlen & 255), f);
	fputc((int)(hlen >> 8), f);
	fputs(dict, f);
	fwrite(pad, 1, hlen - strlen(dict) - 1, f);
	fputc('\n', f);
	for (k = 0; k < L * (size_t)d; k++) {
		double v = gsl_ran_gaussian(r, 1.0 / sqrt((double)d));

		fwrite(&v, sizeof(v), 1, f); /* little-endian hosts only, as '<f8' says */
	}
	gsl_rng_free(r);
	return fclose(f) != 0;
}
