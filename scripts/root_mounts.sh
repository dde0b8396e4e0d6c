# Sourced by every script that enters a Debian root (scripts/pgroot.sh, the pg_upgrade roots): a
# server there needs /proc, /dev and /dev/shm (its shared memory), and some packages' scripts
# (java's) need /proc.
#   . scripts/root_mounts.sh
#   mount_root ROOT [DIR...]    also bind-mounts each host DIR at the same path in ROOT
# mount_root unmounts everything again when the script exits (its EXIT trap); a script with more
# to clean up sets its own trap that calls unmount_root. Unmounting is lazy: a process of the root
# that is still exiting may hold a mount a moment longer.

root_mounted=()

unmount_root() {
    local m
    for m in "${root_mounted[@]}"; do umount -l "$m" 2>/dev/null; done
    root_mounted=()
}

mount_root() {
    local root=$1 m
    shift
    trap unmount_root EXIT
    mount -t proc proc "$root/proc" && root_mounted=("$root/proc" "${root_mounted[@]}")
    # Each mount goes to the front of the list: unmount_root undoes them in reverse order.
    for m in /dev /dev/shm "$@"; do
        mkdir -p "$root$m"
        mount --bind "$m" "$root$m" && root_mounted=("$root$m" "${root_mounted[@]}")
    done
}
