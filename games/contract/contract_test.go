package contract

import "testing"

func TestRowStderr(t *testing.T) {
	if got := (Row{Message: "Usage: x"}).Stderr(); got != "Usage: x\n" {
		t.Errorf("Stderr = %q", got)
	}
	if got := (Row{}).Stderr(); got != "" {
		t.Errorf("Stderr of silent row = %q, want empty", got)
	}
}

func TestTableStatus(t *testing.T) {
	tab := Table{{Status: 0}, {Status: 3, Message: "three"}}
	if got := tab.Status(3).Message; got != "three" {
		t.Errorf("Status(3) = %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Status(7) did not panic")
		}
	}()
	tab.Status(7)
}
