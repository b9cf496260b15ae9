package browser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// maskColor paints over what a screenshot must not show (Playwright's own
// mask color).
var maskColor = color.RGBA{R: 0xff, G: 0x00, B: 0xff, A: 0xff}

// box is a viewport rectangle in CSS pixels.
type box struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// patternsArg is scrub.PagePatterns as playwright-go serializes it (maps
// and slices of any only).
func patternsArg() map[string]any {
	b, _ := json.Marshal(scrub.PagePatterns())
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

// screenshot takes the viewport screenshot of a step with everything
// personal painted over: the fields secrets were typed into (Playwright
// masks, by locator), and every field (password fields holding anything
// included) and stretch of text whose value the scrubber would tokenize,
// in open shadow roots and same-origin iframes too (found by maskScript
// with the scrubber's own patterns, painted here, so the page is never
// touched).
// known lists values the session knows are personal.
func (s *Session) screenshot(so playwright.PageScreenshotOptions, known []string) ([]byte, error) {
	so.Type = playwright.ScreenshotTypePng
	s.mu.Lock()
	typed := len(s.masked) > 0
	s.mu.Unlock()
	if typed {
		// Playwright's mask costs a round of overlays: only when a
		// secret was typed.
		so.Mask = s.maskLocators()
	}
	boxes, err := s.maskBoxes(known)
	if err != nil {
		return nil, err
	}
	png, err := s.page.Screenshot(so)
	if err != nil || len(boxes) == 0 {
		return png, err
	}
	return paint(png, boxes, s.opts.Env.DeviceScaleFactor)
}

// maskBoxes asks the page where personal data shows.
func (s *Session) maskBoxes(known []string) ([]box, error) {
	ks := make([]any, len(known))
	for i, k := range known {
		ks[i] = k
	}
	raw, err := s.page.Evaluate(maskScript, map[string]any{"patterns": patternsArg(), "known": ks})
	if err != nil {
		return nil, fmt.Errorf("browser: finding what to mask: %w", err)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("browser: mask boxes: %w", err)
	}
	var boxes []box
	if err := json.Unmarshal(b, &boxes); err != nil {
		return nil, fmt.Errorf("browser: mask boxes: %w", err)
	}
	return boxes, nil
}

// paint fills the boxes (CSS pixels, scaled by the device scale factor)
// in a PNG.
func paint(data []byte, boxes []box, scale float64) ([]byte, error) {
	src, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("browser: decoding the screenshot: %w", err)
	}
	if scale <= 0 {
		scale = 1
	}
	img, ok := src.(draw.Image)
	if !ok {
		rgba := image.NewRGBA(src.Bounds())
		draw.Draw(rgba, rgba.Bounds(), src, src.Bounds().Min, draw.Src)
		img = rgba
	}
	fill := image.NewUniform(maskColor)
	for _, b := range boxes {
		r := image.Rect(int(math.Floor(b.X*scale)), int(math.Floor(b.Y*scale)),
			int(math.Ceil((b.X+b.W)*scale)), int(math.Ceil((b.Y+b.H)*scale))).Intersect(img.Bounds())
		draw.Draw(img, r, fill, image.Point{}, draw.Src)
	}
	var out bytes.Buffer
	// Speed over size: a screenshot is encoded on every observed step.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&out, img); err != nil {
		return nil, fmt.Errorf("browser: encoding the screenshot: %w", err)
	}
	return out.Bytes(), nil
}

// knownPersonal lists the values the session knows are personal, for
// masking: the secrets it typed, the personal field values its
// observations saw, and the values scrubbed from bodies by their key.
func (s *Session) knownPersonal(pii []string) []string {
	s.mu.Lock()
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, v := range s.typed {
		add(v)
	}
	for v := range s.seenPII {
		add(v)
	}
	s.mu.Unlock()
	for _, v := range pii {
		add(v)
	}
	for _, v := range s.sensitiveValues() {
		add(v)
	}
	return out
}
