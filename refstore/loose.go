package refstore

import (
	"compress/zlib"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// writeLoose stores data as a loose object of type typ under objects (a
// repository's objects directory) the way git's write_loose_object does:
// deflated at git's default loose-object level (core.looseCompression is
// best speed), into a read-only temporary file beside its final name, then
// renamed into place. An object already there is kept as it is. It replaces
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
	zw, _ := zlib.NewWriterLevel(f, zlib.BestSpeed)
	_, err = zw.Write([]byte(hdr))
	if err == nil {
		_, err = zw.Write(data)
	}
	if err == nil {
		err = zw.Close()
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
