/*
 * k-means colour quantisation, the first application of 004 §4.3.7 (Figure 30): four
 * flow-models, one kernel each, joined by batches/graphs/kmeans.xml.
 *
 *   InitCenterCluster  k initial centres, picked at random from the picture's pixels
 *   SetGroup           every pixel's nearest centre (its group)
 *   SetNewCenter       every group's mean colour: the new centres
 *   ChangeColor        every pixel painted in the colour of its nearest new centre
 *
 * A picture of npix pixels is 3 * npix uchar values, r, g, b per pixel. A centre is an int4:
 * r, g, b and the number of pixels in its group (0: the group was empty). All the
 * arithmetic is in integers (squared distances, sums, rounded means), so any device, and
 * the C reference tests/tools/kmeansref.c, computes exactly the same result.
 *
 * The graph runs SetGroup and SetNewCenter in a loop (SetNewCenter's centres feed the next
 * SetGroup, an INITONCE edge whose initial data are zeros): one item of the graph's stream
 * is one k-means iteration. A centre with an empty group, or the zeros of the first
 * iteration, is replaced by its initial centre from InitCenterCluster.
 */

/* A 32-bit integer hash (the "lowbias32" finaliser): the random choice of a centre. */
static uint mix(uint x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static int dist2(int r, int g, int b, int4 c)
{
	int dr = r - c.x, dg = g - c.y, db = b - c.z;

	return dr * dr + dg * dg + db * db;
}

/*
 * InitCenterCluster: centre j is a random pixel of the j-th of k equal strips of the
 * picture (stratified, so that the centres come from different parts of it):
 *   pixel = j * (npix / k) + mix(seed * 0x9e3779b9 + j) % (npix / k).
 * Global size k; npix >= k.
 */
__kernel void kmeans_init(__global const uchar *pixels, __global int4 *centers, const int npix,
			  const int k, const uint seed)
{
	uint j = get_global_id(0);
	uint strip = (uint)npix / (uint)k;
	uint p = j * strip + mix(seed * 0x9e3779b9u + j) % strip;

	centers[j] = (int4)(pixels[3 * p], pixels[3 * p + 1], pixels[3 * p + 2], 1);
}

/*
 * SetGroup: pixel i's group is the index of its nearest centre, the lowest index on a tie.
 * Centre j is centers[j] when its group had pixels (w > 0), else init_centers[j]. Global
 * size npix.
 */
__kernel void kmeans_set_group(__global const uchar *pixels, __global const int4 *init_centers,
			       __global const int4 *centers, __global int *groups, const int k)
{
	uint i = get_global_id(0);
	int r = pixels[3 * i], g = pixels[3 * i + 1], b = pixels[3 * i + 2];
	int best = 0, bestd = INT_MAX;

	for (int j = 0; j < k; j++) {
		int4 c = centers[j].w > 0 ? centers[j] : init_centers[j];
		int d = dist2(r, g, b, c);

		if (d < bestd) {
			bestd = d;
			best = j;
		}
	}
	groups[i] = best;
}

/*
 * SetNewCenter: centre j is the mean colour of group j, each component rounded to the
 * nearest integer (halves up), with the group's size in w; an empty group gives (0,0,0,0).
 * Global size k; each work-item sums its group over all pixels in order.
 */
__kernel void kmeans_set_new_center(__global const uchar *pixels, __global const int *groups,
				    __global int4 *centers, const int npix)
{
	int j = get_global_id(0);
	uint sr = 0, sg = 0, sb = 0, n = 0;

	for (int i = 0; i < npix; i++) {
		if (groups[i] != j)
			continue;
		sr += pixels[3 * i];
		sg += pixels[3 * i + 1];
		sb += pixels[3 * i + 2];
		n++;
	}
	if (n == 0)
		centers[j] = (int4)(0);
	else
		centers[j] = (int4)((sr + n / 2) / n, (sg + n / 2) / n, (sb + n / 2) / n, n);
}

/*
 * ChangeColor: pixel i takes the colour of its nearest centre among those whose group had
 * pixels, the lowest index on a tie. Global size npix.
 */
__kernel void kmeans_change_color(__global const uchar *pixels, __global const int4 *centers,
				  __global uchar *image, const int k)
{
	uint i = get_global_id(0);
	int r = pixels[3 * i], g = pixels[3 * i + 1], b = pixels[3 * i + 2];
	int best = -1, bestd = INT_MAX;

	for (int j = 0; j < k; j++) {
		int d;

		if (centers[j].w <= 0)
			continue;
		d = dist2(r, g, b, centers[j]);
		if (d < bestd) {
			bestd = d;
			best = j;
		}
	}
	if (best < 0) {
		/* Only when every group is empty, which a picture of at least one pixel never
		 * gives: keep the pixel. */
		image[3 * i] = (uchar)r;
		image[3 * i + 1] = (uchar)g;
		image[3 * i + 2] = (uchar)b;
		return;
	}
	image[3 * i] = (uchar)centers[best].x;
	image[3 * i + 1] = (uchar)centers[best].y;
	image[3 * i + 2] = (uchar)centers[best].z;
}
