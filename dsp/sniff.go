package dsp

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// sniffLen is how many leading bytes Sniff wants to see: enough for every
// magic number it knows, MPEG-TS's being the longest (two sync bytes 188
// bytes apart: 189).
const sniffLen = 512

// ErrNotStreamable reports media that cannot be decoded from a stream that
// does not seek: an MP4 or QuickTime file whose index (the moov box)
// follows its media data. Decode it from a file.
var ErrNotStreamable = errors.New("media needs seeking: its index follows the media data")

// Sniff names the container of a file from its first bytes (magic numbers),
// never from a file name: "wav", "rf64", "mp3", "flac", "ogg", "mp4", "mov",
// "matroska", "aac", "aiff", "avi", "caf", "mpegts", or "" when unknown.
func Sniff(h []byte) string {
	switch {
	case len(h) >= 12 && string(h[:4]) == "RIFF" && string(h[8:12]) == "WAVE":
		return "wav"
	case len(h) >= 12 && (string(h[:4]) == "RF64" || string(h[:4]) == "BW64") && string(h[8:12]) == "WAVE":
		return "rf64"
	case len(h) >= 12 && string(h[:4]) == "RIFF" && string(h[8:12]) == "AVI ":
		return "avi"
	case len(h) >= 12 && string(h[:4]) == "FORM" && (string(h[8:12]) == "AIFF" || string(h[8:12]) == "AIFC"):
		return "aiff"
	case len(h) >= 4 && string(h[:4]) == "fLaC":
		return "flac"
	case len(h) >= 4 && string(h[:4]) == "OggS":
		return "ogg"
	case len(h) >= 4 && string(h[:4]) == "caff":
		return "caf"
	case len(h) >= 4 && bytes.Equal(h[:4], []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return "matroska"
	case len(h) >= 12 && string(h[4:8]) == "ftyp":
		if string(h[8:10]) == "qt" {
			return "mov"
		}
		return "mp4"
	case len(h) >= 8 && (string(h[4:8]) == "moov" || string(h[4:8]) == "mdat" || string(h[4:8]) == "wide" || string(h[4:8]) == "free"):
		return "mov"
	case len(h) >= 10 && string(h[:3]) == "ID3":
		// An ID3v2 tag: what follows is MP3 (or, rarely, AAC); ffmpeg tells them apart.
		return "mp3"
	case len(h) >= 189 && h[0] == 0x47 && h[188] == 0x47:
		return "mpegts"
	case len(h) >= 4 && h[0] == 0xFF && h[1]&0xF6 == 0xF0:
		return "aac" // ADTS: sync 0xFFF, layer 00
	case len(h) >= 4 && isMP3FrameHeader(binary.BigEndian.Uint32(h)):
		return "mp3"
	}
	return ""
}

// isMP3FrameHeader reports whether v is a plausible MPEG audio layer III frame header.
func isMP3FrameHeader(v uint32) bool {
	if v>>21 != 0x7FF { // frame sync
		return false
	}
	version := (v >> 19) & 3
	layer := (v >> 17) & 3
	bitrate := (v >> 12) & 0xF
	rate := (v >> 10) & 3
	return version != 1 && layer == 1 && bitrate != 0 && bitrate != 15 && rate != 3
}

// NeedsSeek reports whether the media whose first bytes are head can only
// be decoded with seeking: an MP4 or QuickTime file whose moov box is not
// found before its mdat box (or not at all within head; the longer head,
// the surer the answer: 64 KiB holds the leading boxes of real files).
// Every other format Sniff knows decodes from a stream.
func NeedsSeek(head []byte) bool {
	if k := Sniff(head); k != "mp4" && k != "mov" {
		return false
	}
	for off := 0; off+8 <= len(head); {
		size := uint64(binary.BigEndian.Uint32(head[off:]))
		typ := string(head[off+4 : off+8])
		switch typ {
		case "moov":
			return false
		case "mdat":
			return true
		}
		switch size {
		case 0: // the box runs to the end of the file
			return true
		case 1: // 64-bit size
			if off+16 > len(head) {
				return true
			}
			size = binary.BigEndian.Uint64(head[off+8:])
		}
		if size < 8 || size > uint64(len(head)-off) {
			return true // the next box header is beyond head
		}
		off += int(size)
	}
	return true
}
