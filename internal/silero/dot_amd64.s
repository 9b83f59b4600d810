#include "textflag.h"

// func dotSSE(a, b []float32) float32
TEXT ·dotSSE(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	XORPS X0, X0 // lanes: s0, s1, s2, s3
	MOVQ CX, BX
	SHRQ $2, BX
	JZ   tail

loop:
	MOVUPS (SI), X1
	MOVUPS (DI), X2
	MULPS  X2, X1
	ADDPS  X1, X0
	ADDQ   $16, SI
	ADDQ   $16, DI
	DECQ   BX
	JNZ    loop

tail:
	ANDQ $3, CX
	JZ   done

tailloop:
	MOVSS (SI), X1
	MOVSS (DI), X2
	MULSS X2, X1
	ADDSS X1, X0 // s0 += a[i]*b[i]
	ADDQ  $4, SI
	ADDQ  $4, DI
	DECQ  CX
	JNZ   tailloop

done:
	MOVAPS  X0, X1
	SHUFPS  $0xB1, X1, X1 // s1, s0, s3, s2
	ADDPS   X1, X0        // s0+s1, _, s2+s3, _
	MOVHLPS X0, X1        // s2+s3 in lane 0
	ADDSS   X1, X0        // (s0+s1) + (s2+s3)
	MOVSS   X0, ret+48(FP)
	RET

#define HSUM(X, OFF) \
	MOVAPS  X, X9 \
	SHUFPS  $0xB1, X9, X9 \
	ADDPS   X9, X \
	MOVHLPS X, X9 \
	ADDSS   X9, X \
	MOVSS   X, OFF(DX)

// func dot4SSE(a, w []float32, stride int, out *[4]float32)
TEXT ·dot4SSE(SB), NOSPLIT, $0-64
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ w_base+24(FP), DI
	MOVQ stride+48(FP), R8
	MOVQ out+56(FP), DX
	SHLQ $2, R8 // stride in bytes
	LEAQ (DI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	MOVQ CX, BX
	SHRQ $2, BX
	JZ   tail4

loop4:
	MOVUPS (SI), X4
	MOVUPS (DI), X5
	MULPS  X4, X5
	ADDPS  X5, X0
	MOVUPS (R9), X6
	MULPS  X4, X6
	ADDPS  X6, X1
	MOVUPS (R10), X7
	MULPS  X4, X7
	ADDPS  X7, X2
	MOVUPS (R11), X8
	MULPS  X4, X8
	ADDPS  X8, X3
	ADDQ   $16, SI
	ADDQ   $16, DI
	ADDQ   $16, R9
	ADDQ   $16, R10
	ADDQ   $16, R11
	DECQ   BX
	JNZ    loop4

tail4:
	ANDQ $3, CX
	JZ   done4

tailloop4:
	MOVSS (SI), X4
	MOVSS (DI), X5
	MULSS X4, X5
	ADDSS X5, X0
	MOVSS (R9), X6
	MULSS X4, X6
	ADDSS X6, X1
	MOVSS (R10), X7
	MULSS X4, X7
	ADDSS X7, X2
	MOVSS (R11), X8
	MULSS X4, X8
	ADDSS X8, X3
	ADDQ  $4, SI
	ADDQ  $4, DI
	ADDQ  $4, R9
	ADDQ  $4, R10
	ADDQ  $4, R11
	DECQ  CX
	JNZ   tailloop4

done4:
	HSUM(X0, 0)
	HSUM(X1, 4)
	HSUM(X2, 8)
	HSUM(X3, 12)
	RET
