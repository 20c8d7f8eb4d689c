/* What a source the container reaches (its root, a bind) is stored on, for
 * the io ceiling (spec/floor_io.h): the whole disks io.max can name, read
 * from the object the runtime holds open, never from the config's path.
 *
 * - a file system on a block device: that device, or for a partition its
 *   parent disk (/sys/dev/block/MAJ:MIN/partition, then ../dev), since
 *   io.max takes only whole disks; device-mapper and loop devices are
 *   whole disks already;
 * - btrfs (whose st_dev is an anonymous device per subvolume): the device
 *   its mount names;
 * - an overlay: the union of what its upper and lower layers are on, each
 *   opened by the path its mount options give (as its mounter named it);
 *   a layer that cannot be opened makes the overlay a source with no disk;
 * - tmpfs, proc, sysfs and the other in-memory file systems: memory;
 * - anything else with no device of its own (9p, NFS, FUSE, virtiofs): no
 *   disk. */
#ifndef SB_IO_BACKING_H
#define SB_IO_BACKING_H

#include "spec/floor_io.h"

/* fd: O_PATH will do. Never fails: what cannot be read is a source with
 * no disk, named in out->fs. */
void io_backing_probe(int fd, struct floor_io_backing *out);

/* dev's whole disk as io.max names it (itself when it is no partition). */
struct floor_io_disk io_backing_whole_disk(unsigned major, unsigned minor);

#endif
