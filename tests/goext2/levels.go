package main

// levels.go: an IntEnumFor type of uint8 (godlpack.IntEnumFor) as a parameter
// and a result, beside a tuple (tests/test_goext_arguments.py's
// test_enum_results_are_members).

import "github.com/godlpack/godlpack"

// Level is goext2.Level, an IntEnum.
type Level uint8

const (
	Low  Level = 1
	High Level = 200
)

func init() {
	godlpack.Extend("goext2",
		godlpack.IntEnumFor[Level]("Level", "A level of uint8 values.").
			Value("LOW", int64(Low)).Value("HIGH", int64(High)),
		godlpack.Func("other_level", otherLevel, "level").
			Doc("HIGH for LOW, LOW for HIGH: an enum parameter and result."),
		godlpack.Func("level_of", levelOf, "n").
			Doc("Level(n) and n, unchecked: a result that is no member's value raises ValueError."),
	)
}

func otherLevel(l Level) Level {
	if l == Low {
		return High
	}
	return Low
}

func levelOf(n uint8) (Level, uint8) { return Level(n), n }
