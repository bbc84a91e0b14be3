// SPDX-License-Identifier: GPL-2.0
/*
 * H5, block devices: a block device's own page cache holds what
 * filesystems read through buffer heads (ext4's inode tables, directories,
 * extent blocks and bitmaps, jbd2's journal) and what programs read from
 * the device node.  With "bdev" in the filesystems knob ccache keeps those
 * pages too: capture.c takes them at eviction like a file's, and a read
 * bio for one of them is served here, where every bio passes:
 * submit_bio_noacct(), redirected by ftrace as serve.c redirects
 * read_pages().
 *
 * Coherence.  The kernel keeps a block device's page cache coherent with
 * writes made through it, not with writes that bypass it: a file's data
 * written over a block that held metadata, jbd2's copies of metadata in
 * the journal, direct I/O or a program writing to the device.  The stale
 * page does the kernel no harm: it is never read as it is, and eviction
 * forgets it.  A copy kept past the eviction would be read, so:
 *
 *  1. Every bio that writes, discards or zeroes sectors erases, before it
 *     goes on, the entries and marks of every page it covers in every
 *     partition of its disk (the whole disk included), whatever its path;
 *     and again as each of its requests completes (block_rq_complete):
 *     a read that began while the write was in flight may have brought
 *     what the disk held before, and been captured since.
 *  2. A page is captured only if it carries a *mark* (consumed by the
 *     capture, erased by every deletion from the page cache), set when a
 *     bio that reads the whole page is submitted.  A write that completes
 *     after the mark was set erases it (1), whenever it began: one in
 *     flight when the module loaded too.  Pages made in memory without a
 *     read (a new metadata block) have no mark.
 *  3. A mark holds the CRC32C of what the read brought, taken as its
 *     request completes (block_rq_complete), or as the store serves the
 *     page; the page is captured only if its bytes still have that CRC.
 *     A page can differ from the disk without any write: ext4 changes a
 *     metadata buffer in place, and jbd2 drops the change without writing
 *     it when the journal aborts (a shutdown, an error) or when the block
 *     is freed in the same transaction (jbd2_journal_forget()), leaving
 *     the page clean.  The kernel forgets it at eviction; ccache must not
 *     keep it.  A read that fails never gets its CRC.  Such a change is
 *     often a few bits (a bitmap, a counter): a CRC catches every change
 *     of up to three bits or within 32 consecutive ones for sure, where
 *     the entries' checksum (kspu_page_sum()) only makes an escape
 *     unlikely, so marks keep the CRC.
 *
 * A capture consumes its pages' marks and inserts their entries under
 * ccache_lock; a writer erases a page's mark before it erases the page's
 * entry, under ccache_lock: so a capture either comes before the erase of
 * its entry, or finds no mark.  A read of a page while a write to it is
 * in flight may be served what the disk held before; so may a read from
 * the disk.  Once the write completes, neither that copy nor the page the
 * read filled is kept.
 *
 * Keys: the device's inode (its dev_t) with the disk's diskseq as
 * generation (ccache_key_of()), so that a loop device attached to another
 * file, or another disk given the same number, never matches old entries.
 * Only blk-mq disks that are neither zoned, DAX-capable nor checked by an
 * integrity profile are cached, and only while a filesystem ccache caches
 * holds them (ccache_bdev_allowed(); its unmount erases what they had,
 * ccache_bdev_unmounted()); writes through other disks (device mapper,
 * md) reach a blk-mq disk below them, whose entries they erase.
 *
 * Not seen: writes that are no bios (SG_IO or NVMe passthrough, which the
 * kernel's own page cache does not see either).  Documentation/design.rst,
 * "Metadata".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blk-integrity.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/xarray.h>

#include "ccache.h"
#include "store.h"
#include "../include/compat.h"

#define CCACHE_BIO_SUBMIT "submit_bio_noacct"
#define CCACHE_RQ_DONE_TP "block_rq_complete"

static void (*ccache_orig_submit_bio)(struct bio *bio);
static struct ftrace_ops ccache_bdev_ops;
static bool ccache_bdev_ops_registered;
static struct tracepoint *ccache_rq_done_tp;
/* ccache_bdev_super()'s sign of a filesystem's hold, where it needs one */
static void *ccache_fs_holder_func;
static atomic_t ccache_bdev_inflight = ATOMIC_INIT(0);

/*
 * Marks (rules 2 and 3), by (dev_t << 32 | page index); the value is
 * ccache_mark_value()'s.  The xarray's own lock, taken with interrupts
 * off: the capture probe consumes marks under the page cache's locks, and
 * requests complete in interrupts.
 */
static DEFINE_XARRAY_FLAGS(ccache_bdev_marks, XA_FLAGS_LOCK_IRQ);

/*
 * Set before the first mark: from then on writes erase what they cover,
 * "bdev" allowed or not, so that entries kept before it was taken out are
 * never served stale when it is put back.
 */
static bool ccache_bdev_seen;

/* The block devices' pseudo-filesystem, once a page of it was seen. */
static struct super_block *ccache_bdev_sb;

/* Does a request of @op change the sectors it covers? */
static bool ccache_bdev_writes_op(enum req_op op)
{
	return op == REQ_OP_WRITE || op == REQ_OP_DISCARD ||
	       op == REQ_OP_SECURE_ERASE || op == REQ_OP_WRITE_ZEROES;
}

/*
 * May pages of this disk be kept at all?  Not with an integrity profile:
 * a read that completed may still fail its check afterwards (in a
 * worker), when rule 3 has already taken its CRC.
 */
static bool ccache_bdev_disk_ok(struct block_device *bdev)
{
	struct request_queue *q = bdev_get_queue(bdev);

	return queue_is_mq(q) && !bdev_is_zoned(bdev) && !blk_queue_dax(q) &&
	       !blk_get_integrity(bdev->bd_disk);
}

/**
 * ccache_bdev_allowed() - may pages of this block device's page cache be
 * kept?
 * @inode: the block device's inode (S_ISBLK, on the bdev pseudo-filesystem)
 *
 * Only while a filesystem ccache caches is mounted on the device (its
 * own: not a journal or log device it holds too, which its unmount would
 * not erase).  The device's content then changes through this kernel's
 * bios alone (writing the device of a mounted ext4 or xfs otherwise
 * corrupts it anyway).  A device no filesystem of ours holds may be
 * written by another host (a cluster filesystem's shared disk, re-read
 * after another node changed it) or through a file (a loop device's
 * backing file).
 *
 * Context: any.
 */
bool ccache_bdev_allowed(struct inode *inode)
{
	struct block_device *bdev = I_BDEV(inode);
	struct super_block *sb;
	bool ok;

	if (!(ccache_param_filesystems() & BIT(CCACHE_FS_BDEV)) ||
	    !ccache_bdev_disk_ok(bdev))
		return false;
	rcu_read_lock();
	sb = ccache_bdev_super(bdev, ccache_fs_holder_func);
	/* not a device a filesystem holds besides its own (ext4's journal) */
	ok = sb && sb->s_bdev == bdev && ccache_sb_allowed(sb);
	rcu_read_unlock();
	return ok;
}

/* The mark's index of page @index of the device @dev, or 0: none. */
static unsigned long ccache_mark_index(dev_t dev, pgoff_t index)
{
	if (index >> 32)
		return 0;
	return (unsigned long)dev << 32 | index;
}

/*
 * A mark's value: the low 30 bits of the disk's diskseq (a mark of a past
 * disk at the same number is no mark), the CRC32C of the page as read
 * (@crc), and whether the read has completed (@read; until then @crc is
 * 0).
 */
#define CCACHE_MARK_READ	BIT(0)
#define CCACHE_MARK_CRC_SHIFT	1
#define CCACHE_MARK_SEQ_SHIFT	33

static unsigned long ccache_mark_seq(struct gendisk *disk)
{
	return (disk->diskseq & GENMASK(29, 0)) << CCACHE_MARK_SEQ_SHIFT;
}

static void *ccache_mark_value(struct gendisk *disk, u32 crc, bool read)
{
	return xa_mk_value(ccache_mark_seq(disk) |
			   (unsigned long)crc << CCACHE_MARK_CRC_SHIFT |
			   (read ? CCACHE_MARK_READ : 0));
}

/* The CRC32C of @page's data, as marks hold it (rule 3). */
static u32 ccache_bdev_page_crc(struct page *page)
{
	void *data = kmap_local_page(page);
	u32 crc = crc32c(~0U, data, PAGE_SIZE);

	kunmap_local(data);
	return crc;
}

/*
 * Page @index of @bdev, @page, was read whole: if its read's mark is still
 * there (no write since), it gets the CRC of what the read brought.
 *
 * Context: any, the read's page locked or its buffer.
 */
static void ccache_bdev_page_read(struct block_device *bdev, struct page *page,
				  pgoff_t index)
{
	unsigned long i = ccache_mark_index(bdev->bd_dev, index), flags;
	void *pending = ccache_mark_value(bdev->bd_disk, 0, false);
	void *read;
	u32 crc;

	if (!i || xa_load(&ccache_bdev_marks, i) != pending)
		return;
	crc = ccache_bdev_page_crc(page);
	read = ccache_mark_value(bdev->bd_disk, crc, true);
	xa_lock_irqsave(&ccache_bdev_marks, flags);
	/* replaces a value: no allocation */
	__xa_cmpxchg(&ccache_bdev_marks, i, pending, read, GFP_ATOMIC);
	xa_unlock_irqrestore(&ccache_bdev_marks, flags);
}

/*
 * Forget the marks of pages @first..@last of @dev, CCACHE_LOCK_BATCH at
 * most under one hold of the marks' lock, with interrupts on in between:
 * an unmount forgets every mark of its device, one per page of the
 * device's that was read and is still cached or stored.  Returns how
 * many.
 */
static unsigned long ccache_marks_erase(dev_t dev, pgoff_t first, pgoff_t last)
{
	unsigned long start = ccache_mark_index(dev, first), index, end;
	unsigned long flags, batch, n = 0;
	void *mark;

	/*
	 * A mark set after this look is a read's that began after the write
	 * did: the write's completion erases it, or came before the read.
	 * So is one set between two batches, behind the walk.
	 */
	if ((!start && first) || xa_empty(&ccache_bdev_marks))
		return 0;
	end = ccache_mark_index(dev, min_t(pgoff_t, last, U32_MAX));
	do {
		batch = 0;
		xa_lock_irqsave(&ccache_bdev_marks, flags);
		xa_for_each_range(&ccache_bdev_marks, index, mark, start, end) {
			__xa_erase(&ccache_bdev_marks, index);
			if (++batch == CCACHE_LOCK_BATCH)
				break;
		}
		xa_unlock_irqrestore(&ccache_bdev_marks, flags);
		n += batch;
		/* on after the last one erased */
		start = index + 1;
	} while (batch == CCACHE_LOCK_BATCH && index < end);
	return n;
}

/**
 * ccache_bdev_verify() - before a block device's folio is captured: keep
 * the marks of its pages whose bytes are still what their reads brought
 * @folio: the folio, leaving the page cache through reclaim; its mapping
 *	is a block device's
 *
 * Erases the others' marks, so that ccache_bdev_evicted() refuses the
 * folio.  Nothing marks a page of a folio on its way out (no read can
 * start on it), so what this leaves holds until ccache_bdev_evicted().
 *
 * Context: the capture probe, before it takes ccache_lock: the CRCs are
 * no work for a lock every CPU takes.
 */
void ccache_bdev_verify(struct folio *folio)
{
	struct inode *inode = folio->mapping->host;
	unsigned long index = ccache_mark_index(inode->i_rdev, folio->index);
	long i, nr = folio_nr_pages(folio);
	unsigned long flags;
	void *mark, *good;
	u32 crc;

	for (i = 0; i < nr && index && !xa_empty(&ccache_bdev_marks); i++) {
		mark = xa_load(&ccache_bdev_marks, index + i);
		if (!mark)
			continue;
		crc = ccache_bdev_page_crc(folio_page(folio, i));
		good = ccache_mark_value(I_BDEV(inode)->bd_disk, crc, true);
		if (mark == good)
			continue;
		xa_lock_irqsave(&ccache_bdev_marks, flags);
		__xa_erase(&ccache_bdev_marks, index + i);
		xa_unlock_irqrestore(&ccache_bdev_marks, flags);
	}
}

/**
 * ccache_bdev_evicted() - a block device's folio leaves the page cache
 * @folio: the folio; its mapping is a block device's
 *
 * Erases the marks of its pages, whatever the reason it leaves.
 *
 * Context: the capture probe; under ccache_lock when it captures (see the
 * top of the file), after ccache_bdev_verify().
 * Return: true when every page had a mark of its completed read: its data
 * is what the disk holds, and it may be captured.
 */
bool ccache_bdev_evicted(struct folio *folio)
{
	struct inode *inode = folio->mapping->host;
	unsigned long index = ccache_mark_index(inode->i_rdev, folio->index);
	unsigned long seq = ccache_mark_seq(I_BDEV(inode)->bd_disk);
	long i, nr = folio_nr_pages(folio);
	bool marked = index;
	unsigned long mark;

	if (xa_empty(&ccache_bdev_marks))
		return false;
	xa_lock(&ccache_bdev_marks);
	for (i = 0; i < nr && index; i++) {
		mark = xa_to_value(__xa_erase(&ccache_bdev_marks, index + i));
		/* the same disk, and read: the CRC was checked just before */
		if (!(mark & CCACHE_MARK_READ) ||
		    (mark & ~GENMASK(CCACHE_MARK_SEQ_SHIFT - 1, 0)) != seq)
			marked = false;
	}
	xa_unlock(&ccache_bdev_marks);
	return marked;
}

/*
 * Mark the pages a read @bio of the device's own page cache fills whole,
 * each at its own place, as rule 2 says.
 */
static void ccache_bdev_mark(struct bio *bio)
{
	struct address_space *mapping = ccache_bdev_mapping(bio->bi_bdev);
	void *mark = ccache_mark_value(bio->bi_bdev->bd_disk, 0, false);
	dev_t dev = bio->bi_bdev->bd_dev;
	pgoff_t index, first = ULONG_MAX, last = 0;
	struct bvec_iter iter;
	unsigned long flags;
	struct folio *folio;
	struct bio_vec bv;
	bool failed = false;

	if (bio_flagged(bio, BIO_REMAPPED))
		return;
	xa_lock_irqsave(&ccache_bdev_marks, flags);
	bio_for_each_segment(bv, bio, iter) {
		folio = page_folio(bv.bv_page);
		index = iter.bi_sector >> (PAGE_SHIFT - SECTOR_SHIFT);
		/* the mapping before anything else: a bio's page may be anything */
		if (READ_ONCE(folio->mapping) != mapping || bv.bv_offset ||
		    bv.bv_len != PAGE_SIZE ||
		    folio->index + folio_page_idx(folio, bv.bv_page) != index ||
		    !ccache_mark_index(dev, index))
			continue;
		first = min(first, index);
		last = max(last, index);
		failed |= xa_is_err(__xa_store(&ccache_bdev_marks,
					       ccache_mark_index(dev, index),
					       mark, GFP_NOWAIT | __GFP_NOWARN));
	}
	xa_unlock_irqrestore(&ccache_bdev_marks, flags);
	/* a page left with the mark of an earlier read: none of them */
	if (failed)
		ccache_marks_erase(dev, first, last);
}

/*
 * The folio a read @bio fills whole, when it is a page cache folio of the
 * device it reads, at its own place; else NULL.
 */
static struct folio *ccache_bdev_read_folio(struct bio *bio)
{
	struct bio_vec *bv;
	struct folio *folio;

	/* a clone (device mapper) shares its parent's vectors: not ours */
	if (bio->bi_vcnt != 1 || bio_flagged(bio, BIO_CLONED) ||
	    bio_flagged(bio, BIO_REMAPPED))
		return NULL;
	bv = bio_first_bvec_all(bio);
	folio = page_folio(bv->bv_page);
	/*
	 * The mapping before anything else: a bio's page may be anything.  The
	 * size tells that the bio starts at its vector's start.
	 */
	if (READ_ONCE(folio->mapping) != ccache_bdev_mapping(bio->bi_bdev) ||
	    bv->bv_page != &folio->page || bv->bv_offset ||
	    bv->bv_len != folio_size(folio) ||
	    bio->bi_iter.bi_size != bv->bv_len ||
	    bio->bi_iter.bi_sector !=
	    (sector_t)folio->index << (PAGE_SHIFT - SECTOR_SHIFT))
		return NULL;
	return folio;
}

/* Serve or mark a read of the device's own page cache, then submit it. */
static void ccache_bdev_read(struct bio *bio)
{
	struct address_space *mapping = ccache_bdev_mapping(bio->bi_bdev);
	struct ccache_serve_buf *sb;
	struct folio *folio;
	struct ccache_key key;
	long i;

	if (!ccache_bdev_allowed(mapping->host)) {
		ccache_orig_submit_bio(bio);
		return;
	}
	WRITE_ONCE(ccache_bdev_sb, mapping->host->i_sb);
	WRITE_ONCE(ccache_bdev_seen, true);	/* before the marks: see there */
	ccache_bdev_mark(bio);
	folio = ccache_bdev_read_folio(bio);
	if (!folio) {
		ccache_orig_submit_bio(bio);
		return;
	}
	ccache_key_of(mapping->host, &key);
	sb = (bio->bi_opf & REQ_NOWAIT) ? NULL : ccache_serve_buf_get();
	if (sb && ccache_serve_folio(&key, folio, sb)) {
		kfree(sb);
		for (i = 0; i < folio_nr_pages(folio); i++)
			ccache_bdev_page_read(bio->bi_bdev,
					      folio_page(folio, i),
					      folio->index + i);
		ccache_stat_add(bdev_hits, folio_nr_pages(folio));
		bio->bi_status = BLK_STS_OK;
		bio_endio(bio);
		return;
	}
	kfree(sb);
	ccache_stat_add(bdev_misses, folio_nr_pages(folio));
	ccache_orig_submit_bio(bio);
}

/*
 * Forget the marks of pages @from..@to of partition @part, and set @key to
 * the store's file of the partition's pages.  Return: false when nothing
 * of any device was stored yet (@key is not set).
 */
static bool ccache_bdev_unmark(struct block_device *part, pgoff_t from,
			       pgoff_t to, struct ccache_key *key)
{
	struct super_block *bdev_sb = READ_ONCE(ccache_bdev_sb);

	ccache_marks_erase(part->bd_dev, from, to);
	if (!bdev_sb)
		return false;
	*key = (struct ccache_key) {
		.sb = bdev_sb, .ino = part->bd_dev,
		.generation = (u32)part->bd_disk->diskseq,
	};
	return true;
}

/* Erase pages @from..@to of partition @part: marks first, then entries. */
static void ccache_bdev_erase_pages(struct block_device *part, pgoff_t from,
				    pgoff_t to)
{
	struct ccache_key key;

	if (ccache_bdev_unmark(part, from, to, &key))
		ccache_stat_add(invalidations, ccache_erase_file(&key, from, to));
}

/*
 * Erase what the store holds of sectors @start..@end - 1 of @disk, in
 * each of its partitions (the top of the file).
 */
static void ccache_bdev_erase(struct gendisk *disk, sector_t start,
			      sector_t end)
{
	struct block_device *part;
	sector_t from, to;
	unsigned long i;

	rcu_read_lock();
	xa_for_each(&disk->part_tbl, i, part) {
		from = max(start, part->bd_start_sect);
		to = min(end, part->bd_start_sect + bdev_nr_sectors(part));
		if (from >= to)
			continue;
		from -= part->bd_start_sect;
		to -= part->bd_start_sect;
		ccache_bdev_erase_pages(part, from >> (PAGE_SHIFT - SECTOR_SHIFT),
					(to - 1) >> (PAGE_SHIFT - SECTOR_SHIFT));
	}
	rcu_read_unlock();
}

/**
 * ccache_bdev_unmounted() - a filesystem is being unmounted: forget its
 * device's marks, and name the file of its pages for the caller to erase
 * @sb: its superblock, no longer active
 * @key: set to the store's file of the device's pages
 *
 * Once no filesystem of ours holds the device, its content may change
 * with no bio this kernel sees (ccache_bdev_allowed()): a loop device's
 * backing file checked and repaired, a shared disk written by another
 * host.  The capture probe looks at the hold again under ccache_lock, so
 * a capture that began before the unmount is erased with the file or
 * refused.  The caller holds a drop (nothing is served) until the file is
 * erased: the unmount's drop, which erases it with its filesystem's
 * (ccache_drop_sb()); @key holds numbers only, and outlives the device.
 *
 * Context: the unmount's hooks (hooks.c), preemption off.
 * Return: true when @key was set (pages of the device may be stored).
 */
bool ccache_bdev_unmounted(struct super_block *sb, struct ccache_key *key)
{
	return sb->s_bdev && READ_ONCE(ccache_bdev_seen) &&
	       ccache_bdev_unmark(sb->s_bdev, 0, ULONG_MAX, key);
}

/* A write, discard or zeroing: erase what it covers, then submit it. */
static void ccache_bdev_write(struct bio *bio)
{
	struct block_device *bdev = bio->bi_bdev;
	sector_t start = bio->bi_iter.bi_sector;

	if (!bio_flagged(bio, BIO_REMAPPED))
		start += bdev->bd_start_sect;
	ccache_bdev_erase(bdev->bd_disk, start, start + bio_sectors(bio));
	ccache_orig_submit_bio(bio);
}

/* What submit_bio_noacct() callers reach when ccache_bdev_hook() says so. */
static noinline void ccache_submit_bio(struct bio *bio)
{
	atomic_inc(&ccache_bdev_inflight);
	if (bio_op(bio) == REQ_OP_READ)
		ccache_bdev_read(bio);
	else
		ccache_bdev_write(bio);
	atomic_dec(&ccache_bdev_inflight);
	barrier();	/* no tail call: see serve.c */
}

/*
 * Every bio: send to ccache_submit_bio() the reads ccache may serve and
 * the writes that may cover what it keeps.
 */
static void notrace ccache_bdev_hook(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *ops,
				     struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct bio *bio;
	bool mine;

	if (!regs || within_module(parent_ip, THIS_MODULE))
		return;
	bio = (struct bio *)regs_get_kernel_argument(regs, 0);
	if (bio_op(bio) == REQ_OP_READ) {
		mine = ccache_param_filesystems() & BIT(CCACHE_FS_BDEV) &&
		       ccache_param_enabled();
	} else {
		mine = bio_sectors(bio) && READ_ONCE(ccache_bdev_seen);
	}
	if (mine)
		ccache_ftrace_set_ip(fregs, (unsigned long)ccache_submit_bio);
}

/*
 * A read request completed its first @nr_bytes: the pages they filled
 * whole get their CRCs (rule 3).  The data is in memory; the bios that
 * get it are still the request's, each from where an earlier partial
 * completion left it.
 */
static void ccache_bdev_rq_read(struct request *rq, unsigned int nr_bytes)
{
	struct bvec_iter iter;
	struct folio *folio;
	struct bio_vec bv;
	struct bio *bio;

	__rq_for_each_bio(bio, rq) {
		bio_for_each_segment(bv, bio, iter) {
			if (bv.bv_len > nr_bytes)
				return;
			nr_bytes -= bv.bv_len;
			folio = page_folio(bv.bv_page);
			/* the mapping first: a bio's page may be anything */
			if (READ_ONCE(folio->mapping) !=
			    ccache_bdev_mapping(bio->bi_bdev) ||
			    bv.bv_offset || bv.bv_len != PAGE_SIZE)
				continue;
			ccache_bdev_page_read(bio->bi_bdev, bv.bv_page,
					      folio->index +
					      folio_page_idx(folio, bv.bv_page));
		}
	}
}

/*
 * A write request completed (in part): erase again what its bios cover,
 * each from where earlier completions left it (rule 1).  A discard merges
 * bios that are not contiguous: each bio's own sectors, the contiguous
 * ones together.
 */
static void ccache_bdev_rq_write(struct request *rq)
{
	sector_t start = 0, end = 0;
	struct bio *bio;

	__rq_for_each_bio(bio, rq) {
		if (bio->bi_iter.bi_sector != end) {
			if (end > start)
				ccache_bdev_erase(rq->q->disk, start, end);
			start = bio->bi_iter.bi_sector;
		}
		end = bio_end_sector(bio);
	}
	if (end > start)
		ccache_bdev_erase(rq->q->disk, start, end);
}

/*
 * A request completed its first @nr_bytes: a read's marks get their CRCs
 * (rule 3); what a write covers is erased again (rule 1), failed or not.
 */
static void ccache_bdev_rq_done(void *data, struct request *rq,
				blk_status_t error, unsigned int nr_bytes)
{
	if (req_op(rq) == REQ_OP_READ && !error &&
	    !xa_empty(&ccache_bdev_marks))
		ccache_bdev_rq_read(rq, nr_bytes);
	else if (ccache_bdev_writes_op(req_op(rq)) && nr_bytes && rq->q->disk &&
		 READ_ONCE(ccache_bdev_seen))
		ccache_bdev_rq_write(rq);
}

/**
 * ccache_bdev_init() - count writes, and redirect submit_bio_noacct()
 *
 * Return: 0, or a negative errno with the reason logged.
 */
int ccache_bdev_init(void)
{
	unsigned long ip;
	int err;

	ccache_orig_submit_bio = ccache_symbol_address(CCACHE_BIO_SUBMIT);
	if (!ccache_orig_submit_bio)
		return ccache_hook_missing("kernel function", CCACHE_BIO_SUBMIT);
#ifdef CCACHE_FS_HOLDER_FUNC
	ccache_fs_holder_func = ccache_symbol_address(CCACHE_FS_HOLDER_FUNC);
	if (!ccache_fs_holder_func)
		pr_warn("kernel function %s not found: no block device's pages will be kept (\"bdev\")\n",
			CCACHE_FS_HOLDER_FUNC);
#endif
	ccache_rq_done_tp = ccache_tracepoint(CCACHE_RQ_DONE_TP);
	if (!ccache_rq_done_tp)
		return -ENOENT;
	err = tracepoint_probe_register(ccache_rq_done_tp, ccache_bdev_rq_done,
					NULL);
	if (err) {
		pr_err("cannot attach to tracepoint %s: %d\n",
		       CCACHE_RQ_DONE_TP, err);
		return err;
	}
	ip = (unsigned long)ccache_orig_submit_bio;
	err = ccache_ftrace_start(&ccache_bdev_ops, ccache_bdev_hook, true, &ip,
				  1);
	if (err) {
		pr_err("cannot redirect %s: %d\n", CCACHE_BIO_SUBMIT, err);
		ccache_bdev_exit();
		return err;
	}
	ccache_bdev_ops_registered = true;
	return 0;
}

/**
 * ccache_bdev_exit() - stop; returns when no task is inside
 * ccache_submit_bio() any more
 */
void ccache_bdev_exit(void)
{
	if (ccache_bdev_ops_registered)
		unregister_ftrace_function(&ccache_bdev_ops);
	ccache_bdev_ops_registered = false;
	ftrace_free_filter(&ccache_bdev_ops);
	while (atomic_read(&ccache_bdev_inflight))
		msleep(20);
	synchronize_rcu_tasks();	/* between the atomic_dec() and the return */
	tracepoint_probe_unregister(ccache_rq_done_tp, ccache_bdev_rq_done,
				    NULL);
	tracepoint_synchronize_unregister();
	xa_destroy(&ccache_bdev_marks);
}
