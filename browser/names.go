package browser

// The words below are data the observation script reads (as its hint
// argument) to name elements a page gives no accessible name. They are
// what many sites share, never what one site does.

// hintNoise are words of class names, ids and icon file names that say
// nothing about what a control does: icon-font and icon-set prefixes
// (fa, glyphicon, material, bi, mdi, octicon, dashicons), markup words
// (icon, btn, svg, img, js) and size or state modifiers (lg, fw, active).
// An icon-only control is named by the words that are left ("fa fa-trash"
// is "trash").
var hintNoise = []string{
	// words for "an icon" or "a control"
	"icon", "icons", "ico", "btn", "button", "svg", "img", "image", "sprite", "glyph", "symbol", "symbols", "js",
	// icon sets and their prefixes
	"fa", "fas", "far", "fab", "fal", "fad", "glyphicon", "glyphicons", "material", "outlined", "round", "sharp",
	"bi", "mdi", "ion", "ionicon", "ionicons", "octicon", "dashicons", "feather", "lucide", "ui",
	// size and state modifiers
	"fw", "lg", "sm", "xs", "md", "xl", "active", "hover", "focus", "inline", "small", "large",
	// button styles of CSS frameworks (Bootstrap's btn-default, btn-outline)
	"default", "primary", "secondary", "outline", "light", "dark",
	// file-name noise
	"png", "gif", "jpg", "jpeg", "webp", "ic", "px",
}

// hintAttrs are attributes a page writes tooltips and icon names into
// besides title and alt: tooltip libraries move title into
// data-original-title (Bootstrap) and keep their text in data-tooltip or
// data-tip; SVG icon sets name the icon in data-icon.
var hintAttrs = []string{"data-original-title", "data-bs-original-title", "data-tooltip", "data-tip", "data-title"}

// hintClassSkip are class prefixes frameworks stamp on every element (or
// generate from a hash): their words say nothing about one element.
var hintClassSkip = []string{"ng-", "css-", "sc-", "jsx-", "svelte-", "ember", "v-"}

// hintArg is the script's hint argument.
func hintArg() map[string]any {
	return map[string]any{"noise": strs(hintNoise), "attrs": strs(hintAttrs), "skip": strs(hintClassSkip)}
}

// strs converts for playwright-go, which serializes only []any.
func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
