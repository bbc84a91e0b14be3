#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full pool takes a page it refused once when that page comes back: one
# pass over cold data fills a small pool, then a file is evicted (refused:
# the pool is full), read from disk and evicted again.  The kernel never
# marked it workingset (ccfile's eviction forgets that pages were active),
# so only the pool's memory of what it refused lets its pages take the
# place of cold ones; its next read is served by ccache, every byte
# matching.
# VM: mem=256 cpus=2 disk=ext4:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
warm=/mnt/d0/readmit/warm
warm_pages=1024

cc_fill_pool /mnt/d0/readmit "$warm"

cc_snap first
cc_evict "$warm"
cc_show "after evicting the file once"
check_gt "the full pool refused most of its pages" \
	"$(cc_delta first reject_pool_limit)" $((warm_pages / 2))
run_check "it reads back as its model (from disk)" \
	"$CCFILE" verify -m read "$warm"

cc_snap again
cc_evict "$warm"
# More than a quarter replaced, not a half: pages that the first
# eviction stored, their read from disk took out as hits, and their room
# needs no replacement.  The one-in-eight turnover alone replaces about
# an eighth of the file.
cc_check_replaced again "$warm" $warm_pages $((warm_pages / 4))
tap_done
