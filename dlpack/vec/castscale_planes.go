package vec

import (
	"cmp"
	"errors"
	"fmt"
)

// CastScaleShiftPlanes is CastScaleShiftView plane by plane, with a k and a c
// for each: for each index i of the first dimension, dst[i] = D(src[i])*k[i] +
// c[i]. A CxHxW image's per-channel normalization ((x/255 - mean[i]) / std[i]
// as x*k[i] + c[i], torchvision's Normalize) from an HxWxC uint8 one is one
// call:
//
//	hwc, _ := vec.FromTensor[uint8](img)
//	chw, _ := hwc.Permute(2, 0, 1)
//	err := vec.CastScaleShiftPlanes(dst, chw, k[:], c[:])
//
// Where each plane of dst is contiguous and each plane of src evenly spaced (an
// HxWxC image's channel is one line at step C), the planes are passed as
// lines, no sub-view made: a 4x4x3 image costs a third of three Slab pairs and
// CastScaleShiftView calls, whose View copies are most of a small image's
// time. dst has no zero stride and does not overlap src, unless it is src
// itself; len(k) and len(c) are the number of planes.
func CastScaleShiftPlanes[D Float, S Number](dst View[D], src View[S], k, c []D) error {
	shape := dst.dims.shape()
	if err := cmp.Or(check(shape, &dst), check(shape, &src), writable(&dst)); err != nil {
		return err
	}
	if len(shape) == 0 {
		return errors.New("vec: CastScaleShiftPlanes of 0-d views: pass views whose first dimension is the planes")
	}
	if len(k) != shape[0] || len(c) != shape[0] {
		return fmt.Errorf("vec: %d planes, %d scales and %d shifts: pass one k and one c a plane", shape[0], len(k), len(c))
	}
	dstr, sstr := dst.dims.strides(), src.dims.strides()
	n, dstep, dok := evenLine(shape[1:], dstr[1:])
	_, sstep, sok := evenLine(shape[1:], sstr[1:])
	if dok && n == 0 {
		return nil // no elements: a view of none may have any offset
	}
	if dok && sok && (dstep == 1 || n == 1) {
		for i := range shape[0] {
			d := dst.offset + i*dstr[0]
			castScaleShiftLine(dst.data[d:d+n], src.data, src.offset+i*sstr[0], sstep, k[i], c[i])
		}
		return nil
	}
	for i := range shape[0] {
		d, _ := dst.Slab(int64(i), int64(i+1)) // in range: i < shape[0]
		s, _ := src.Slab(int64(i), int64(i+1))
		if err := CastScaleShiftView(d, s, k[i], c[i]); err != nil {
			return err
		}
	}
	return nil
}
