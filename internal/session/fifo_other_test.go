//go:build !unix

package session_test

import "errors"

func syscallMkfifo(string) error { return errors.New("no FIFOs on this system") }
