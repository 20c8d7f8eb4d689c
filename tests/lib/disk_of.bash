# disk_of PATH: the whole disk, MAJ:MIN, that the io ceiling names in io.max
# for the file system PATH is on (runtime/host/io_backing.c): the device
# of its st_dev, or a partition's parent disk.
disk_of() {
        local dev
        dev=$(stat -c '%Hd:%Ld' "$1") || return 1
        if [ -e "/sys/dev/block/$dev/partition" ]; then
                cat "/sys/dev/block/$dev/../dev"
        else
                echo "$dev"
        fi
}
