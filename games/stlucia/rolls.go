package stlucia

import "strings"

// RollFile is the parsed content of a roll file. It keeps the file's lines so that Format
// gives back the exact bytes parsed; Dice gives the stream the game draws from.
type RollFile struct {
	// Lines are the file split at each '\n' (so a file ending in '\n' has a last empty
	// line). Each holds only faces.
	Lines []string
}

// ParseRollFile checks a whole roll file: newlines anywhere, faces "123HAP" otherwise, and
// at least one die. Any other byte (including '\r') or an empty file is an error, which the
// hub reports as "Error reading rolls".
func ParseRollFile(data []byte) (RollFile, error) {
	n := 0
	for _, c := range data {
		if c == '\n' {
			continue
		}
		if _, ok := FaceOf(c); !ok {
			return RollFile{}, formatError(RuleRollChar, string(c))
		}
		n++
	}
	if n == 0 {
		return RollFile{}, formatError(RuleRollEmpty, string(data))
	}
	return RollFile{Lines: strings.Split(string(data), "\n")}, nil
}

// Format returns the file's bytes as they were parsed.
func (f RollFile) Format() []byte { return []byte(strings.Join(f.Lines, "\n")) }

// Dice returns the dice of the file in order, newlines skipped: the stream all players draw
// from.
func (f RollFile) Dice() []Face {
	var d []Face
	for _, l := range f.Lines {
		for i := 0; i < len(l); i++ {
			c, _ := FaceOf(l[i])
			d = append(d, c)
		}
	}
	return d
}
