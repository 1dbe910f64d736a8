// The header declares libFuzzer's driver for Swift; the fuzzer runtime defines it.
#include "CFuzzerDriver.h"
