"""The zip container of a checkpoint, written and read as PyTorch's own writer does.

torch writes every record uncompressed, under one folder named after the file
(`model.pt` -> `model/...`, a buffer -> `archive/...`), each record's data aligned
to 64 bytes by padding an extra field ("FB" + length + "Z"s) into its local header,
sizes in a data descriptor after the data, and a zip64 end record always. Writing
the same bytes ourselves keeps checkpoints identical in layout to torch's (so its
mmap loading works on them) and lets `save` stream to any writable file object.
"""
import os
import struct
import zipfile
import zlib

from .._backend import numpy as np

__all__ = []

ALIGNMENT = 64
_U32_MAX = 0xFFFFFFFF
_FLAGS = 0x0808  # data descriptor follows the data; names are UTF-8

_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")

_MINIZ = (". This is an internal miniz error. If you are seeing this error, there is a high "
          "likelihood that your checkpoint file is corrupted. This can happen if the checkpoint "
          "was not saved properly, was transferred incorrectly, or the file was modified after "
          "saving.")
# miniz's words for an archive shorter than an end-of-directory record, and for any other.
NOT_A_ZIP = "PytorchStreamReader failed reading zip archive: not a ZIP archive" + _MINIZ
CORRUPT_ZIP = ("PytorchStreamReader failed reading zip archive: failed finding central "
               "directory" + _MINIZ)
_END_RECORD_SIZE = 22


class ZipWriter:
    """Appends records under `<archive_name>/` and finishes with torch's end records."""

    def __init__(self, file, archive_name):
        self.file = file
        self.prefix = archive_name + "/"
        self.offset = 0
        self.entries = []  # (name bytes, crc, size, header offset)

    def _write(self, data):
        view = memoryview(data)  # torch's writer hands the file memoryviews, never bytes
        self.file.write(view)
        self.offset += view.nbytes

    def write_record(self, name, data):
        """One uncompressed record; `data` is bytes or a flat uint8 array."""
        name = (self.prefix + name).encode("utf-8")
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        size = len(view)
        crc = zlib.crc32(view)
        header_offset = self.offset
        big_size, big_offset = size >= _U32_MAX, header_offset >= _U32_MAX
        zip64 = _zip64_extra(size if big_size else None, header_offset if big_offset else None)
        start = header_offset + _LOCAL.size + len(name) + len(zip64) + 4
        padding = -start % ALIGNMENT
        extra = zip64 + b"FB" + struct.pack("<H", padding) + b"Z" * padding
        self._write(_LOCAL.pack(0x04034B50, 0, _FLAGS, 0, 0, 0, 0, 0, 0, len(name), len(extra))
                    + name + extra)
        self._write(view)
        if zip64:
            self._write(struct.pack("<IIQQ", 0x08074B50, crc, size, size))
        else:
            self._write(struct.pack("<IIII", 0x08074B50, crc, size, size))
        self.entries.append((name, crc, size, header_offset))

    def finish(self):
        """The version and serialization-id records, then the central directory."""
        self.write_record("version", b"3\n")
        serialization_id = "".join(f"{int.from_bytes(os.urandom(8), 'little'):020d}"
                                   for _ in range(2))
        self.write_record(".data/serialization_id", serialization_id.encode("ascii"))
        directory_offset = self.offset
        for name, crc, size, header_offset in self.entries:
            big_size, big_offset = size >= _U32_MAX, header_offset >= _U32_MAX
            extra = _zip64_extra(size if big_size else None,
                                 header_offset if big_offset else None)
            self._write(_CENTRAL.pack(0x02014B50, 0, 0, _FLAGS, 0, 0, 0, crc,
                                      min(size, _U32_MAX), min(size, _U32_MAX), len(name),
                                      len(extra), 0, 0, 0, 0, min(header_offset, _U32_MAX))
                        + name + extra)
        self._end_records(directory_offset, self.offset - directory_offset)

    def _end_records(self, directory_offset, directory_size):
        count = len(self.entries)
        zip64_end = self.offset
        self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 0x002D, 0, 0, count,
                                count, directory_size, directory_offset))
        self._write(struct.pack("<IIQI", 0x07064B50, 0, zip64_end, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, 0xFFFF),
                                min(count, 0xFFFF), min(directory_size, _U32_MAX),
                                min(directory_offset, _U32_MAX), 0))


def _zip64_extra(size, offset):
    """The zip64 extended-information field for values past 32 bits (empty if none)."""
    values = ([size, size] if size is not None else []) + ([offset] if offset is not None else [])
    if not values:
        return b""
    return struct.pack(f"<HH{len(values)}Q", 1, 8 * len(values), *values)


def is_zipfile(file):
    """torch's test: the stream starts with a zip local-header signature."""
    start = file.tell()
    magic = file.read(4)
    file.seek(start)
    return magic == b"PK\x03\x04"


class ZipArchive:
    """Reads a torch checkpoint's records by name (relative to its top folder)."""

    def __init__(self, file):
        if not hasattr(file, "seekable"):
            file = _SeekableFile(file)
        self.file = file
        try:
            self.zip = zipfile.ZipFile(file)
            infos = self.zip.infolist()
            self.size = file.seek(0, os.SEEK_END)
        except Exception as error:  # zipfile raises many kinds for a damaged archive
            short = file.seek(0, os.SEEK_END) < _END_RECORD_SIZE
            raise RuntimeError(NOT_A_ZIP if short else CORRUPT_ZIP) from error
        if not infos:
            raise RuntimeError(CORRUPT_ZIP)
        first = infos[0].filename
        if "/" not in first:
            # torch's C++ check, its source location included in the text
            raise RuntimeError("[enforce fail at inline_container.cc:180] . file in archive is "
                               f"not in a subdirectory: {first}")
        prefix = first[:first.index("/") + 1]
        self.records = {info.filename[len(prefix):]: info for info in infos
                        if info.filename.startswith(prefix)}
        self.mmap = None

    def map(self, path):
        """Read storages from a copy-on-write map of the file at `path` from now on."""
        self.mmap = np.memmap(path, np.uint8, "c")

    def has_record(self, name):
        return name in self.records

    def _info(self, name):
        info = self.records.get(name)
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not "
                               "found" + _MINIZ)
        return info

    def get_record(self, name):
        """A small record's bytes (data.pkl, byteorder...)."""
        info = self._info(name)
        try:
            return self.zip.read(info)
        except Exception as error:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: {error}. "
                               "The checkpoint file is likely corrupted.") from error

    def read_storage(self, name, nbytes):
        """A storage record as a writable flat uint8 array of exactly `nbytes`."""
        info = self._info(name)
        if info.file_size != nbytes:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: the record "
                               f"holds {info.file_size} bytes but the checkpoint expects "
                               f"{nbytes}. The checkpoint file is likely corrupted.")
        if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 1:
            return np.frombuffer(bytearray(self.get_record(name)), np.uint8)
        start = self._data_offset(name, info)
        if self.mmap is not None:
            return self.mmap[start:start + nbytes]
        return _read_exactly(self.file, start, nbytes, name)

    def _data_offset(self, name, info):
        """Where a stored record's bytes begin: after its local header and extra field."""
        if not 0 <= info.header_offset < self.size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: invalid "
                               "header or archive is corrupted")
        self.file.seek(info.header_offset)
        header = self.file.read(_LOCAL.size)
        if len(header) != _LOCAL.size or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: invalid "
                               "header or archive is corrupted")
        fields = _LOCAL.unpack(header)
        start = info.header_offset + _LOCAL.size + fields[9] + fields[10]
        if start + info.file_size > self.size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: the archive "
                               "is truncated")
        return start


class _SeekableFile:
    """A file object with only read, seek and tell (all torch asks for), as zipfile
    wants it."""

    def __init__(self, file):
        self._file = file

    def seekable(self):
        return True

    def read(self, size=-1):
        return self._file.read(size)

    def seek(self, offset, whence=os.SEEK_SET):
        return self._file.seek(offset, whence)

    def tell(self):
        return self._file.tell()


def _read_exactly(file, start, nbytes, name):
    out = np.empty(nbytes, np.uint8)
    file.seek(start)
    view = memoryview(out)
    done = 0
    readinto = getattr(file, "readinto", None)
    while done < nbytes:
        if readinto is not None:
            count = readinto(view[done:])
        else:
            chunk = file.read(nbytes - done)
            count = len(chunk)
            view[done:done + count] = chunk
        if not count:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: the archive "
                               "is truncated")
        done += count
    return out
