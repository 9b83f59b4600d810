#include "textflag.h"

// func pcm16AVX2(dst []float32, src []int16)
// dst[i] = float32(src[i]) * 2^-15 for len(src) a multiple of 16, as the
// Go loop computes it (the conversion and the scaling are exact).
TEXT ·pcm16AVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), CX
	MOVL $0x38000000, AX // 2^-15
	MOVD AX, X15
	VBROADCASTSS X15, Y15
	SHRQ $4, CX
	JZ   done

loop:
	VPMOVSXWD (SI), Y0
	VPMOVSXWD 16(SI), Y1
	VCVTDQ2PS Y0, Y0
	VCVTDQ2PS Y1, Y1
	VMULPS    Y15, Y0, Y0
	VMULPS    Y15, Y1, Y1
	VMOVUPS   Y0, (DI)
	VMOVUPS   Y1, 32(DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       loop

done:
	VZEROUPPER
	RET
