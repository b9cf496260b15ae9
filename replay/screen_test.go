package replay

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

func pngOf(t *testing.T, w, h int, paint func(x, y int) color.Gray) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetGray(x, y, paint(x, y))
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestScreenDistance: the same picture is at 0, a few changed pixels stay
// near it, a different page is far, and what is not a PNG is an error.
func TestScreenDistance(t *testing.T) {
	white := func(x, y int) color.Gray { return color.Gray{255} }
	page := pngOf(t, 320, 200, white)
	speck := pngOf(t, 320, 200, func(x, y int) color.Gray {
		if x < 3 && y < 3 {
			return color.Gray{0}
		}
		return color.Gray{255}
	})
	half := pngOf(t, 320, 200, func(x, y int) color.Gray {
		if y < 100 {
			return color.Gray{0}
		}
		return color.Gray{255}
	})
	for _, c := range []struct {
		name     string
		a, b     []byte
		min, max float64
	}{
		{"same", page, page, 0, 0},
		{"a speck", page, speck, 0, 0.001},
		{"half the page dark", page, half, 0.49, 0.51},
		{"another size", page, pngOf(t, 640, 400, white), 0, 1e-9},
	} {
		d, err := screenDistance(c.a, c.b)
		if err != nil || d < c.min || d > c.max {
			t.Errorf("%s: distance %.4f (%v), want %.3f to %.3f", c.name, d, err, c.min, c.max)
		}
	}
	if _, err := screenDistance(page, []byte("not a png")); err == nil {
		t.Error("a file that is not a PNG compared")
	}
}
