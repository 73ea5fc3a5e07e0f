package indexfile

import (
	"fmt"
	"os"
	"runtime"
)

// DirWarning returns a message for the user when dir exists and other
// users may list it (group or world read permission), "" otherwise. memidx
// creates a missing index directory 0700 but never changes the mode of an
// existing one, so this is the only protection it offers there.
func DirWarning(dir string) string {
	if runtime.GOOS == "windows" {
		return "" // mode bits do not describe who may read there
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() || st.Mode().Perm()&0o044 == 0 {
		return ""
	}
	return fmt.Sprintf("index directory %s can be read by other users (mode %#o); memidx does not change the "+
		"permissions of a directory it did not create: chmod 700 it, or use an index directory of your own", dir, st.Mode().Perm())
}
