package refstore

import (
	"compress/zlib"
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/adler32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// writeLoose stores data as a loose object of type typ under objects (a
// repository's objects directory) the way git's write_loose_object does:
// a zlib stream in a read-only temporary file beside its final name, then
// renamed into place. A record (a few hundred bytes) goes into the stream
// as it is, as git stores it with core.looseCompression = 0: deflating it
// saves nothing on a filesystem of 4 KiB blocks, and Go's compressor costs
// a quarter of a millisecond to set up (its tables are fresh pages) in a
// command whose whole work is a millisecond or two. Larger objects are
// deflated at best speed, git's default. An object already there is kept as it is. It replaces
// go-git's writer on the hot path: that one deflates at the default level,
// whose compressor allocates about a megabyte for a record of a few hundred
// bytes, and goes through a virtual filesystem for every step.
func writeLoose(objects, typ string, data []byte) (string, error) {
	hdr := typ + " " + strconv.Itoa(len(data)) + "\x00"
	h := sha1.New()
	h.Write([]byte(hdr))
	h.Write(data)
	id := hex.EncodeToString(h.Sum(nil))
	dir := filepath.Join(objects, id[:2])
	final := filepath.Join(dir, id[2:])
	if _, err := os.Lstat(final); err == nil {
		return id, nil
	}
	var err error
	// git gc removes an objects/xx directory once it is empty, and may do
	// so between our mkdir and our create: make it again, a few times.
	for try := 0; try < 3; try++ {
		if err = writeLooseIn(dir, final, hdr, data); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err = os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			break
		}
		err = fs.ErrNotExist
	}
	if err != nil {
		return "", fmt.Errorf("writing object %s: %w", id, err)
	}
	return id, nil
}

func writeLooseIn(dir, final, hdr string, data []byte) error {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "tmp_obj_"+hex.EncodeToString(rnd[:]))
	// 0444 less the umask, as git makes object files: nobody rewrites one.
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return err
	}
	if len(hdr)+len(data) <= storedMax {
		_, err = f.Write(zlibStored(hdr, data))
	} else {
		zw, _ := zlib.NewWriterLevel(f, zlib.BestSpeed)
		_, err = zw.Write([]byte(hdr))
		if err == nil {
			_, err = zw.Write(data)
		}
		if err == nil {
			err = zw.Close()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	// Renamed into place, not linked and unlinked as git does (one
	// filesystem operation less): a writer that got there first wrote the
	// same bytes, so replacing its file changes nothing.
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// storedMax is the largest object (with its header) written into its zlib
// stream without deflating it.
const storedMax = 16 << 10

// zlibStored is a zlib stream of hdr then data in one deflate stored block
// (RFC 1950 and 1951): a two-byte header, the block's final-block flag,
// its length and the length's complement, the bytes, then their Adler-32.
// Any zlib reader, git's and go-git's included, inflates it. One block
// holds at most 65,535 bytes, which storedMax keeps under.
func zlibStored(hdr string, data []byte) []byte {
	n := len(hdr) + len(data)
	out := make([]byte, 0, 2+5+n+4)
	out = append(out, 0x78, 0x01) // deflate, 32 KiB window, fastest: 0x7801 is a multiple of 31
	out = append(out, 1, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
	out = append(append(out, hdr...), data...)
	return binary.BigEndian.AppendUint32(out, adler32.Checksum(out[7:]))
}

// A stored block's length has 16 bits.
var _ [0xffff - storedMax]struct{}
