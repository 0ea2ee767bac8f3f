//go:build !purego

#include "textflag.h"

// func Load(p unsafe.Pointer)
TEXT ·Load(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ	p+0(FP), AX
	PREFETCHT0	(AX)
	RET
