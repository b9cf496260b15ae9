package replay

import (
	"bytes"
	"fmt"
	"image"
	_ "image/png" // the screenshots are PNG
	"math"
)

// ScreenAlike is the perceptual distance (StepReport.ScreenDiff) under
// which two screenshots show the same page: a screenshot a strict replay
// renders on demand and the one the capture took of the same step
// (capture.screenshots: all) stay under it, a changed heading or a
// different page go well over it.
const ScreenAlike = 0.01

// screenGrid is the side of the grid two screenshots are compared on:
// each cell the mean luminance of its block of pixels.
const screenGrid = 32

// screenDistance is a perceptual distance between two screenshots, from
// 0 (alike) to 1: the mean absolute difference of their luminance on a
// screenGrid × screenGrid grid of block means, so a caret, a pixel of
// antialiasing or a changed digit moves it little and a different page
// much. Screenshots of other sizes are compared on the same grid.
func screenDistance(a, b []byte) (float64, error) {
	ga, err := lumaGrid(a)
	if err != nil {
		return 0, err
	}
	gb, err := lumaGrid(b)
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for i := range ga {
		sum += math.Abs(ga[i] - gb[i])
	}
	return sum / float64(len(ga)) / 255, nil
}

// lumaGrid decodes a PNG and returns the mean luminance (0-255) of each
// cell of its screenGrid × screenGrid grid.
func lumaGrid(png []byte) ([]float64, error) {
	img, _, err := image.Decode(bytes.NewReader(png))
	if err != nil {
		return nil, fmt.Errorf("replay: screenshot: %w", err)
	}
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	if w == 0 || h == 0 {
		return nil, fmt.Errorf("replay: screenshot of %dx%d pixels", w, h)
	}
	sum := make([]float64, screenGrid*screenGrid)
	n := make([]float64, screenGrid*screenGrid)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		gy := (y - r.Min.Y) * screenGrid / h
		for x := r.Min.X; x < r.Max.X; x++ {
			gx := (x - r.Min.X) * screenGrid / w
			cr, cg, cb, _ := img.At(x, y).RGBA()
			l := (0.299*float64(cr) + 0.587*float64(cg) + 0.114*float64(cb)) / 257
			sum[gy*screenGrid+gx] += l
			n[gy*screenGrid+gx]++
		}
	}
	for i := range sum {
		if n[i] > 0 {
			sum[i] /= n[i]
		}
	}
	return sum, nil
}
