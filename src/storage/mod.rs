//! Everything that touches the file system: roots, scanning, reading, appending, forking, trash.
