package task

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Resolve returns the value of an input, reading a secret from the
// environment or its file. It is called by the process that types the
// value, never by the loader, and its result must not be logged. A secret
// file must be a regular file of at most MaxSecretFileSize bytes: a FIFO
// or a device is refused without blocking.
func (in Input) Resolve() (string, error) {
	switch {
	case in.SecretEnv != "":
		v, ok := os.LookupEnv(in.SecretEnv)
		if !ok {
			return "", fmt.Errorf("%w: environment variable %s is not set", ErrSecretMissing, in.SecretEnv)
		}
		return v, nil
	case in.SecretFile != "":
		b, err := readRegular(in.SecretFile, MaxSecretFileSize)
		if err != nil {
			var r refusal
			if errors.As(err, &r) {
				return "", fmt.Errorf("%w: secret file %s is %s: a secret file must be a regular file of at most %d bytes",
					ErrSecretMissing, in.SecretFile, r, MaxSecretFileSize)
			}
			if pe, ok := err.(*os.PathError); ok {
				err = pe.Err
			}
			return "", fmt.Errorf("%w: secret file %s: %v", ErrSecretMissing, in.SecretFile, err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	return in.Value, nil
}

// CheckSecrets resolves every secret input once, so a run fails before it
// starts when one is missing. The values are discarded.
func (t *Task) CheckSecrets() error {
	names := make([]string, 0, len(t.Inputs))
	for n := range t.Inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		in := t.Inputs[n]
		if !in.Secret() {
			continue
		}
		if _, err := in.Resolve(); err != nil {
			return t.secretError("inputs."+n, in, err)
		}
	}
	names = names[:0]
	for n := range t.Environment.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if h := t.Environment.Headers[n]; h.Secret() {
			if _, err := h.Resolve(); err != nil {
				return t.secretError("environment.headers."+n, h, err)
			}
		}
	}
	if k := t.Planner.APIKey; k != nil && t.UsesModel() {
		if _, err := k.Resolve(); err != nil {
			return t.secretError("planner.api_key", *k, err)
		}
	}
	if in := t.Auth.StorageState; in != nil {
		if _, err := ResolveStorageState(*in); err != nil {
			return t.secretError("auth.storage_state", *in, err)
		}
	}
	return nil
}

// secretError locates a secret that cannot be resolved at its reference
// in the task file.
func (t *Task) secretError(path string, in Input, err error) error {
	field := path + ".secret_env"
	if in.SecretFile != "" {
		field = path + ".secret_file"
	}
	msg := strings.TrimPrefix(err.Error(), ErrSecretMissing.Error()+": ")
	return &Error{File: t.file, Line: lineOf(t.root, field), Field: field, Msg: msg}
}

// SecretValues resolves every secret input and returns the values, for
// scrubbing: whatever holds them must never write them anywhere.
func (t *Task) SecretValues() []string {
	var out []string
	for _, in := range t.Inputs {
		if !in.Secret() {
			continue
		}
		if v, err := in.Resolve(); err == nil && v != "" {
			out = append(out, v)
		}
	}
	for _, h := range t.Environment.Headers {
		// Every header value is treated as a secret: they carry tokens.
		if v, err := h.Resolve(); err == nil && v != "" {
			out = append(out, v)
		}
	}
	if in := t.Auth.StorageState; in != nil {
		// Session cookies and stored tokens are credentials.
		if st, err := ResolveStorageState(*in); err == nil {
			out = append(out, st.Secrets()...)
		}
	}
	if k := t.Planner.APIKey; k != nil && t.UsesModel() {
		if v, err := k.Resolve(); err == nil && v != "" {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}
