//go:build darwin || windows

package locate

import (
	"os/user"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDefaultEnvWithoutHomeAsksTheSystem: on macOS a user's account is in
// Open Directory, not /etc/passwd, and on Windows there is no password
// file at all (and $HOME is usually unset): an unset $HOME still finds
// the user's home, as OMP's os.homedir() does.
func TestDefaultEnvWithoutHomeAsksTheSystem(t *testing.T) {
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skip("the system knows no home for this user")
	}
	t.Setenv("HOME", "")
	assert.Equal(t, u.HomeDir, DefaultEnv().Home)
}
