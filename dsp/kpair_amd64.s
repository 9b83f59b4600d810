#include "textflag.h"

// func kPairAVX(seg []float32, st *[6][2]float64, co *kPairCoef, acc *[5][2]float64)
//
// The K-weighting of a stereo segment, both channels at once in the two
// lanes of an XMM register; the same operations in the same order as
// lane.measureFMA (see kpair_amd64.go).
TEXT ·kPairAVX(SB), NOSPLIT, $0-48
	MOVQ seg_base+0(FP), SI
	MOVQ seg_len+8(FP), CX
	MOVQ st+24(FP), DI
	MOVQ co+32(FP), DX
	MOVQ acc+40(FP), R8
	VMOVUPD 0(DI), X1  // x1
	VMOVUPD 16(DI), X2 // x2
	VMOVUPD 32(DI), X3 // y1
	VMOVUPD 48(DI), X4 // y2
	VMOVUPD 64(DI), X5 // z1
	VMOVUPD 80(DI), X6 // z2
	VXORPD  X7, X7, X7 // sq
	VMOVUPD 112(DX), X8 // hi = -Inf
	VXORPD  X9, X9, X9  // e
	VMOVUPD 128(DX), X13 // lo = +Inf
	VXORPD  X14, X14, X14 // sx
	SHRQ    $1, CX     // frames
	JZ      done

loop:
	VCVTPS2PD (SI), X0 // x
	VMULPD    X0, X0, X10
	VADDPD    X10, X7, X7 // sq += x*x
	VADDPD    X0, X14, X14 // sx += x
	VMAXPD    X0, X8, X8   // hi = max(hi, x)
	VMINPD    X0, X13, X13 // lo = min(lo, x)
	VMULPD    0(DX), X0, X10
	VMULPD    16(DX), X1, X11
	VADDPD    X11, X10, X10
	VMULPD    32(DX), X2, X11
	VADDPD    X11, X10, X10 // u = b0*x + b1*x1 + b2*x2
	VMULPD    48(DX), X4, X11
	VSUBPD    X11, X10, X10 // u - a2*y2
	VFMADD231PD 64(DX), X3, X10 // y = -a1*y1 + (u - a2*y2)
	VADDPD    X3, X3, X11
	VSUBPD    X11, X10, X11 // y - 2*y1
	VADDPD    X4, X11, X11  // + y2
	VMULPD    80(DX), X6, X12
	VSUBPD    X12, X11, X11 // - r2*z2
	VFMADD231PD 96(DX), X5, X11 // z = -r1*z1 + ...
	VMULPD    X11, X11, X12
	VADDPD    X12, X9, X9 // e += z*z
	VMOVAPD   X1, X2
	VMOVAPD   X0, X1
	VMOVAPD   X3, X4
	VMOVAPD   X10, X3
	VMOVAPD   X5, X6
	VMOVAPD   X11, X5
	ADDQ      $8, SI
	DECQ      CX
	JNZ       loop

done:
	VMOVUPD X1, 0(DI)
	VMOVUPD X2, 16(DI)
	VMOVUPD X3, 32(DI)
	VMOVUPD X4, 48(DI)
	VMOVUPD X5, 64(DI)
	VMOVUPD X6, 80(DI)
	VMOVUPD X7, 0(R8)
	VMOVUPD X8, 16(R8)
	VMOVUPD X9, 32(R8)
	VMOVUPD X13, 48(R8)
	VMOVUPD X14, 64(R8)
	VZEROUPPER
	RET
