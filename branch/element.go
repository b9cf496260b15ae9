package branch

// ElementKind is what kind of interactive element an affordance is, as the
// browser's observe script reports it (and the simulated web imitates). It
// is not the ARIA role (Target.Role): an input of type email is an
// ElemEmail whose role is textbox. A kind is recorded in observations, so
// it is never renamed, only added.
type ElementKind string

// Element kinds.
const (
	// ElemLink is a link (an anchor with an href, an ARIA link); one
	// whose href only runs a script has no Affordance.Href.
	ElemLink ElementKind = "link"
	// ElemButton is a button, an input of type submit, button, reset or
	// image, a summary, an ARIA button: a native control or widget role
	// no kind below names.
	ElemButton ElementKind = "button"
	// ElemTextbox is a text input (type text, tel, url, password, a date
	// or time input and any other type the kinds below do not name), an
	// ARIA textbox or searchbox, or a contenteditable element.
	ElemTextbox ElementKind = "textbox"
	// ElemSearch is an input of type search.
	ElemSearch ElementKind = "search"
	// ElemEmail is an input of type email.
	ElemEmail ElementKind = "email"
	// ElemNumber is an input of type number.
	ElemNumber ElementKind = "number"
	// ElemTextarea is a textarea: text of several lines.
	ElemTextarea ElementKind = "textarea"
	// ElemSelect is a select element; Affordance.Options are its choices.
	ElemSelect ElementKind = "select"
	// ElemCheckbox is a checkbox input or an ARIA checkbox.
	ElemCheckbox ElementKind = "checkbox"
	// ElemRadio is a radio input or an ARIA radio.
	ElemRadio ElementKind = "radio"
	// ElemSwitch is an ARIA switch.
	ElemSwitch ElementKind = "switch"
	// ElemSlider is a range input or an ARIA slider.
	ElemSlider ElementKind = "slider"
	// ElemSpinbutton is an ARIA spin button (a number input stays
	// ElemNumber).
	ElemSpinbutton ElementKind = "spinbutton"
	// ElemCombobox is an ARIA combobox; its Value is its shown text.
	ElemCombobox ElementKind = "combobox"
	// ElemListbox is an ARIA listbox.
	ElemListbox ElementKind = "listbox"
	// ElemOption is an ARIA option (an item of a listbox or a suggestion
	// list).
	ElemOption ElementKind = "option"
	// ElemMenuitem is an ARIA menu item (menuitem, menuitemcheckbox,
	// menuitemradio).
	ElemMenuitem ElementKind = "menuitem"
	// ElemTab is an ARIA tab.
	ElemTab ElementKind = "tab"
	// ElemTreeitem is an ARIA tree item.
	ElemTreeitem ElementKind = "treeitem"
	// ElemClickable is any other element a person clicks: one with a
	// click handler, its own pointer cursor or a tab stop, or an item of
	// a composite widget one listener serves.
	ElemClickable ElementKind = "clickable"
	// ElemMenu is an element that only opens on hover (a closed hover
	// menu with no control of its own to point at).
	ElemMenu ElementKind = "menu"
)

// TakesText reports whether an element of kind k takes typed text: a text
// box, search box, email, number or textarea.
func (k ElementKind) TakesText() bool {
	switch k {
	case ElemTextbox, ElemSearch, ElemEmail, ElemNumber, ElemTextarea:
		return true
	}
	return false
}

// HoldsValue reports whether an element of kind k is a form control that
// holds a value a person sets (text, a choice, a checked state, a number):
// not a link, button, menu, tab or option, which are acted on and hold
// nothing.
func (k ElementKind) HoldsValue() bool {
	switch k {
	case ElemTextbox, ElemSearch, ElemEmail, ElemNumber, ElemTextarea, ElemSelect, ElemCheckbox, ElemRadio,
		ElemSwitch, ElemSlider, ElemSpinbutton, ElemCombobox, ElemListbox:
		return true
	}
	return false
}

// SingleLine reports whether an element of kind k is a text field of one
// line: the kinds that take text except the textarea, where Enter starts a
// new line instead of submitting.
func (k ElementKind) SingleLine() bool {
	return k.TakesText() && k != ElemTextarea
}

// Region is the landmark of the page an element sits in, as the browser's
// observe script reports it: the nearest enclosing dialog, header, nav,
// main, footer, aside or form (a field of a form in main is in
// RegionForm; ARIA landmark roles count as their element), or
// RegionObscured for an element a person cannot act on where it is. A region is recorded in observations, so it is never renamed,
// only added.
type Region string

// Regions.
const (
	// RegionNone is an element outside every landmark.
	RegionNone Region = ""
	// RegionHeader is a header element or role banner.
	RegionHeader Region = "header"
	// RegionNav is a nav element or role navigation.
	RegionNav Region = "nav"
	// RegionMain is a main element or role main.
	RegionMain Region = "main"
	// RegionFooter is a footer element or role contentinfo.
	RegionFooter Region = "footer"
	// RegionAside is an aside element.
	RegionAside Region = "aside"
	// RegionForm is a form element.
	RegionForm Region = "form"
	// RegionDialog is a dialog element, role dialog or alertdialog, or an
	// element with aria-modal=true.
	RegionDialog Region = "dialog"
	// RegionObscured is an element something else covers where a click
	// would land, or one outside an open modal dialog: it is shown but a
	// person cannot act on it now. It replaces the element's landmark.
	RegionObscured Region = "obscured"
)
