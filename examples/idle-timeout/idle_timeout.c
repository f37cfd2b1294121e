// SPDX-License-Identifier: GPL-2.0
/*
 * dwq_idle_timeout - per-connection idle timeouts on dwq, as a driver
 * would keep them.
 *
 * Every connection embeds a &struct dwq_task that fires once the connection
 * has been idle for idle_ms. Packets arrive in softirq context (a soft
 * hrtimer stands in for a NIC's NAPI poll) and push the deadline out with
 * dwq_mod(), as a driver calls mod_delayed_work() on every packet; a FIN
 * closes a connection with dwq_cancel() in the same softirq. The idle
 * callback runs on a dwq worker, in process context, and marks its
 * connection timed out. At rmmod every connection is closed with
 * dwq_cancel_sync() and freed at once (the packets stopped first: nothing
 * can queue it again). dwq_queue_reserve() at load makes room for every
 * connection's task, so that no dwq_mod() in softirq fails with -ENOSPC
 * (dwq never allocates on that path: the room is what can run out).
 *
 * The run checks itself. Connection i plays role i % 4:
 *
 *   busy    packets until rmmod
 *   closer  packets, then a FIN at a random time within run_ms
 *   idle    opened, then never a packet
 *   quiet   packets until a random time within run_ms, then silence
 *
 * A busy or closer connection whose packets never came idle_ms apart never
 * times out, and its FIN (or rmmod) finds its task still queued; every idle
 * and quiet connection times out exactly once, not before idle_ms after its
 * last packet. The gaps are measured, so a guest that stalls for idle_ms
 * (only the host can make it) excludes the connections it starved instead
 * of failing them. Such a stall can also deliver a packet after a quiet
 * connection's deadline, while its run is due: that run finds the deadline
 * moved and is stale, and only a packet counted overdue can explain one
 * (the test's rx_in_run sends one as each connection's first run begins).
 * debugfs, dwq_idle_timeout/, holds the counters (stats) and one line per
 * connection (conns); examples/idle-timeout/test.sh asserts the above from
 * them, and rmmod logs what teardown found.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <dwq.h>

/* hrtimer_setup() for kernels before 6.13; a driver for one kernel drops it. */
#include "compat.h"

static unsigned int conns = 64;
module_param(conns, uint, 0444);
MODULE_PARM_DESC(conns, "simulated connections, 1..65536 (default 64)");

static unsigned int idle_ms = 1000;
module_param(idle_ms, uint, 0444);
MODULE_PARM_DESC(idle_ms, "idle timeout, ms, 10..60000 (default 1000)");

static unsigned int run_ms = 3000;
module_param(run_ms, uint, 0444);
MODULE_PARM_DESC(run_ms, "FIN or silence within this many ms (default 3000)");

/* Not for a driver: how the test makes rmmod find a timeout running. */
static unsigned int hold_ms;
module_param(hold_ms, uint, 0444);
MODULE_PARM_DESC(hold_ms,
		 "for the test: idle callbacks sleep this long, ms, 0..10000");

/*
 * Not for a driver: how the test makes an idle run stale. A packet that
 * comes once the run is due needs a stalled packet source (the host's),
 * which a test cannot call up; this one comes as the run begins.
 */
static bool rx_in_run;
module_param(rx_in_run, bool, 0444);
MODULE_PARM_DESC(rx_in_run,
		 "for the test: a packet as each first idle run begins");

static unsigned long long seed = 1;
module_param(seed, ullong, 0444);
MODULE_PARM_DESC(seed, "seed of the packets' random choices (default 1)");

/* How often the packet source runs, if the guest keeps up. */
#define RX_TICK_NS (1 * NSEC_PER_MSEC)
/*
 * Packets a talking connection gets per idle_ms, on average, however late
 * the ticks come: each delivers the packets due since the last one.
 */
#define RX_PER_IDLE 20
/* A timeout may run this fraction of idle_ms late (dwq_sched.slack_ns). */
#define IDLE_SLACK_DIV 16

enum conn_role { ROLE_BUSY, ROLE_CLOSER, ROLE_IDLE, ROLE_QUIET };
enum conn_state { CONN_OPEN, CONN_CLOSED, CONN_TIMED_OUT };

/**
 * struct idle_conn - a simulated connection
 * @task: its idle timeout
 * @lock: protects the fields after it, see there
 * @id: the index in the table
 * @role: an enum conn_role: what the packet source does with it
 * @state: an enum conn_state
 * @end_ns: closer: FIN, quiet: silence, from this many ns after load
 * @last_rx_ns: when the last packet arrived (the open counts as one);
 *	the deadline is this plus idle_ms
 * @max_gap_ns: the longest time from a packet to the dwq_mod() (or the
 *	FIN's dwq_cancel()) of the next one having returned, or to its
 *	timeout's run
 * @late_ns: how long after its deadline the timeout ran
 * @packets: packets taken, the open included
 * @moved: dwq_mod() found the task queued and moved it
 * @requeued: dwq_mod() found the task not queued and queued it
 * @dropped: packets for a connection no longer open
 * @fired: runs of the idle callback
 * @stale: runs that found the deadline moved by a packet that came while
 *	the run was due, and armed the task again for the rest
 * @overdue: packets that took effect idle_ms or more after the one before,
 *	past the deadline it had set: only a stalled packet source sends them
 * @fin: it was closed by a FIN
 * @fin_ret: what the FIN's dwq_cancel() returned
 */
struct idle_conn {
	struct dwq_task task;
	/*
	 * Protects every field below but @id, @role and @end_ns, which are
	 * set before the packet source starts and never change. Taken in
	 * softirq by the packet source, elsewhere with bottom halves off: by
	 * the idle callback, debugfs and teardown. Taken before the queue's
	 * lock (dwq_mod() and dwq_cancel() are called under it), and never
	 * held around dwq_cancel_sync(), which waits for the callback that
	 * takes it.
	 */
	spinlock_t lock;
	unsigned int id;
	u8 role;
	u8 state;
	u64 end_ns;
	u64 last_rx_ns;
	u64 max_gap_ns;
	u64 late_ns;
	u32 packets;
	u32 moved;
	u32 requeued;
	u32 dropped;
	u32 fired;
	u32 stale;
	u32 overdue;
	bool fin;
	int fin_ret;
};

static struct dwq_queue *idle_q;
static struct idle_conn **conn_table;
static u64 idle_ns;
static u64 start_ns;
static struct hrtimer rx_timer;
/*
 * The packet source's state: conn_open() uses @rx_rnd at load, then only
 * rx_tick() uses both, and an hrtimer's callback never runs twice at once.
 */
static struct rnd_state rx_rnd;
static u64 rx_sent;
static struct dentry *dbg_dir;

/* Connections other than busy ones that are neither closed nor timed out. */
static atomic_t nr_unsettled = ATOMIC_INIT(0);
static atomic_t nr_timeouts = ATOMIC_INIT(0);
/* Idle callbacks sleeping hold_ms now. */
static atomic_t nr_holding = ATOMIC_INIT(0);
/* dwq_mod() errors: none is expected, room for every task is reserved. */
static atomic_t nr_mod_errors = ATOMIC_INIT(0);

static const char *const role_names[] = { "busy", "closer", "idle", "quiet" };
static const char *const state_names[] = { "open", "closed", "timed_out" };

/* Move @c's deadline to idle_ms after @from. Called with @c->lock held. */
static int conn_arm(struct idle_conn *c, u64 from)
{
	const struct dwq_sched s = {
		.time_ns = from + idle_ns,
		.mode = DWQ_MODE_ONESHOT,
		.flags = DWQ_SCHED_ABS,
		/* No timeout needs precision: let close ones share a wakeup. */
		.slack_ns = idle_ns / IDLE_SLACK_DIV,
	};
	int ret;

	lockdep_assert_held(&c->lock);
	ret = dwq_mod(idle_q, &c->task, &s);
	if (ret < 0)
		atomic_inc(&nr_mod_errors);
	return ret;
}

/* @c leaves CONN_OPEN for good. Called with @c->lock held. */
static void conn_settle(struct idle_conn *c, u8 state)
{
	lockdep_assert_held(&c->lock);
	c->state = state;
	if (c->role != ROLE_BUSY)
		atomic_dec(&nr_unsettled);
}

/*
 * @prev_ns was @c's last packet, and the next one took effect by now.
 * Returns that gap. Called with @c->lock held.
 */
static u64 conn_gap(struct idle_conn *c, u64 prev_ns)
{
	u64 gap = ktime_get_ns() - prev_ns;

	lockdep_assert_held(&c->lock);
	c->max_gap_ns = max(c->max_gap_ns, gap);
	return gap;
}

/* A packet for @c: push its deadline out. Called with @c->lock held. */
static void conn_rx_locked(struct idle_conn *c)
{
	u64 now = ktime_get_ns();
	u64 prev;
	int ret;

	lockdep_assert_held(&c->lock);
	if (c->state != CONN_OPEN) {
		c->dropped++;
		return;
	}
	prev = c->last_rx_ns;
	c->last_rx_ns = now;
	c->packets++;
	ret = conn_arm(c, now);
	if (ret == 1)
		c->moved++;
	else if (ret == 0)
		c->requeued++;
	if (conn_gap(c, prev) >= idle_ns)
		c->overdue++;
}

/* The idle timeout: runs on a dwq worker, in process context. */
static void conn_idle(struct dwq_task *task)
{
	struct idle_conn *c = container_of(task, struct idle_conn, task);
	u64 now, deadline;

	/* The test's hold_ms: rmmod's dwq_cancel_sync() must wait for it. */
	if (hold_ms) {
		atomic_inc(&nr_holding);
		msleep(hold_ms);
		atomic_dec(&nr_holding);
	}
	now = ktime_get_ns();
	spin_lock_bh(&c->lock);
	/* The test's rx_in_run: as if a packet had come while we slept. */
	if (rx_in_run && !c->fired)
		conn_rx_locked(c);
	c->fired++;
	deadline = c->last_rx_ns + idle_ns;
	if (c->state != CONN_OPEN) {
		/* Closed while this run was due: nothing to time out. */
	} else if (now < deadline) {
		/*
		 * A packet came once this run was due and queued the task
		 * again: not idle. Arming it for the rest again is harmless,
		 * and would be needed if the packet path did not arm.
		 */
		c->stale++;
		conn_arm(c, c->last_rx_ns);
	} else {
		/* Idle since its last packet: that gap is idle_ms at least. */
		conn_gap(c, c->last_rx_ns);
		c->late_ns = now - deadline;
		conn_settle(c, CONN_TIMED_OUT);
		atomic_inc(&nr_timeouts);
		/*
		 * A packet that came while this run was due queued the task
		 * again (dwq_mod() of a running task re-arms it); if this
		 * worker then stalled past that packet's deadline too, the
		 * connection timed out all the same: drop the re-arm, or it
		 * would run once more for a connection already settled.
		 */
		dwq_cancel(&c->task);
	}
	spin_unlock_bh(&c->lock);
}

/* A packet for @c, in softirq context. */
static void conn_rx(struct idle_conn *c)
{
	spin_lock(&c->lock);
	conn_rx_locked(c);
	spin_unlock(&c->lock);
}

/* A FIN for @c, in softirq context: close it, cancelling its timeout. */
static void conn_fin(struct idle_conn *c)
{
	spin_lock(&c->lock);
	if (c->state != CONN_OPEN) {
		c->dropped++;
		goto out;
	}
	c->fin = true;
	/*
	 * A running callback leaves it alone: no need to wait for it, as c
	 * stays allocated until rmmod. A driver that frees c here gives the
	 * task a release function instead, and puts its own reference after
	 * the unlock (README: Using dwq from a module): a callback still
	 * running takes c->lock.
	 */
	conn_settle(c, CONN_CLOSED);
	c->fin_ret = dwq_cancel(&c->task);
	conn_gap(c, c->last_rx_ns);
out:
	spin_unlock(&c->lock);
}

/* The packet source: the packets due since the last tick, at random. */
static enum hrtimer_restart rx_tick(struct hrtimer *timer)
{
	u64 now = ktime_get_ns() - start_ns;
	struct idle_conn *c;
	u64 due, n, i;

	due = mul_u64_u64_div_u64(now, (u64)conns * RX_PER_IDLE, idle_ns);
	/* After a long stall, no flood: a packet a connection at most. */
	n = min_t(u64, due - rx_sent, conns);
	rx_sent = due;
	for (i = 0; i < n; i++) {
		c = conn_table[prandom_u32_state(&rx_rnd) % conns];
		switch (c->role) {
		case ROLE_BUSY:
			conn_rx(c);
			break;
		case ROLE_CLOSER:
			if (now < c->end_ns)
				conn_rx(c);
			else
				conn_fin(c);
			break;
		case ROLE_QUIET:
			if (now < c->end_ns)
				conn_rx(c);
			break;
		default: /* ROLE_IDLE: never a packet */
			break;
		}
	}
	hrtimer_forward_now(timer, ns_to_ktime(RX_TICK_NS));
	return HRTIMER_RESTART;
}

/* Open connection @id: allocate it and arm its timeout. */
static int conn_open(unsigned int id)
{
	struct idle_conn *c;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	/*
	 * No release function: the connection is freed by its owner, after
	 * dwq_cancel_sync() (then the queue holds no reference; ours, from
	 * dwq_task_init(), needs no put with no release function).
	 */
	dwq_task_init(&c->task, conn_idle, NULL);
	spin_lock_init(&c->lock);
	c->id = id;
	c->role = id % 4;
	if (c->role == ROLE_CLOSER || c->role == ROLE_QUIET)
		c->end_ns = (u64)(prandom_u32_state(&rx_rnd) % (run_ms + 1)) *
			    NSEC_PER_MSEC;
	c->state = CONN_OPEN;
	if (c->role != ROLE_BUSY)
		atomic_inc(&nr_unsettled);

	spin_lock_bh(&c->lock);
	c->last_rx_ns = ktime_get_ns();
	c->packets = 1;
	ret = conn_arm(c, c->last_rx_ns);
	if (ret == 0)
		c->requeued++;
	spin_unlock_bh(&c->lock);
	if (ret < 0) {
		if (c->role != ROLE_BUSY)
			atomic_dec(&nr_unsettled);
		kfree(c);
		return ret;
	}
	conn_table[id] = c;
	return 0;
}

/* What closing the connections at teardown found. */
struct close_tally {
	unsigned int freed;
	unsigned int open;
	unsigned int removed;
	unsigned int missed;
	unsigned int waited;
};

/*
 * Close @c for good and free it, in process context: mark it closed, so
 * that a callback running now leaves it alone, then cancel its timeout and
 * wait for that callback. The packet source is stopped.
 */
static void conn_close_sync(struct idle_conn *c, struct close_tally *t)
{
	bool was_open;
	u64 last;
	int ret;

	spin_lock_bh(&c->lock);
	was_open = c->state == CONN_OPEN;
	last = c->last_rx_ns;
	c->state = CONN_CLOSED;
	spin_unlock_bh(&c->lock);

	ret = dwq_cancel_sync(&c->task);
	/*
	 * -EDEADLK, having done nothing, where this could not sleep (under a
	 * spin_lock_bh(), say): the callback may still run, so @c stays.
	 */
	if (WARN_ON_ONCE(ret < 0))
		return;
	if (ret == DWQ_RESULT_RUNNING)
		t->waited++;
	if (was_open) {
		t->open++;
		if (ret == DWQ_RESULT_REMOVED)
			t->removed++;
		/* Not due yet when the cancel returned, so it was queued. */
		else if (ktime_get_ns() - last < idle_ns)
			t->missed++;
	}
	/*
	 * The callback has returned and the queue holds no reference; no
	 * packet can queue it again (they stopped, and it is closed).
	 */
	kfree(c);
	t->freed++;
}

static void conns_close(unsigned int n)
{
	struct close_tally t = {};
	unsigned int i;

	for (i = 0; i < n; i++)
		conn_close_sync(conn_table[i], &t);
	kfree(conn_table);
	pr_info("closed and freed %u connections: %u open, %u of them cancelled while queued, %u not queued before their deadline; %u waited for a running timeout\n",
		t.freed, t.open, t.removed, t.missed, t.waited);
}

static int stats_show(struct seq_file *m, void *v)
{
	u64 packets = 0, dropped = 0;
	struct idle_conn *c;
	unsigned int i;

	for (i = 0; i < conns; i++) {
		c = conn_table[i];
		spin_lock_bh(&c->lock);
		packets += c->packets;
		dropped += c->dropped;
		spin_unlock_bh(&c->lock);
	}
	seq_printf(m, "conns %u\nidle_ms %u\n", conns, idle_ms);
	seq_printf(m, "packets %llu\ndropped %llu\n", packets, dropped);
	seq_printf(m, "timeouts %d\nunsettled %d\nmod_errors %d\nholding %d\n",
		   atomic_read(&nr_timeouts), atomic_read(&nr_unsettled),
		   atomic_read(&nr_mod_errors), atomic_read(&nr_holding));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void *conns_start(struct seq_file *m, loff_t *pos)
{
	if (*pos == 0)
		return SEQ_START_TOKEN;
	return *pos <= conns ? conn_table[*pos - 1] : NULL;
}

static void *conns_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return conns_start(m, pos);
}

static void conns_stop(struct seq_file *m, void *v)
{
}

static const char *fin_name(const struct idle_conn *c)
{
	if (!c->fin)
		return "-";
	switch (c->fin_ret) {
	case DWQ_RESULT_REMOVED:
		return "removed";
	case DWQ_RESULT_RUNNING:
		return "running";
	case DWQ_RESULT_IDLE:
		return "idle";
	}
	return "error";
}

static int conns_show(struct seq_file *m, void *v)
{
	struct idle_conn *c = v;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m,
			 "# id role state packets moved requeued dropped fired stale max_gap_ns late_ns fin overdue\n");
		return 0;
	}
	spin_lock_bh(&c->lock);
	seq_printf(m, "%u %s %s %u %u %u %u %u %u %llu %llu %s %u\n", c->id,
		   role_names[c->role], state_names[c->state], c->packets,
		   c->moved, c->requeued, c->dropped, c->fired, c->stale,
		   c->max_gap_ns, c->late_ns, fin_name(c), c->overdue);
	spin_unlock_bh(&c->lock);
	return 0;
}

static const struct seq_operations conns_sops = {
	.start = conns_start,
	.next = conns_next,
	.stop = conns_stop,
	.show = conns_show,
};
DEFINE_SEQ_ATTRIBUTE(conns);

static int __init idle_timeout_init(void)
{
	unsigned int i;
	int err;

	if (!conns || conns > 65536 || idle_ms < 10 || idle_ms > 60000 ||
	    run_ms > 3600000 || hold_ms > 10000) {
		pr_err("conns=%u idle_ms=%u run_ms=%u hold_ms=%u: out of range\n",
		       conns, idle_ms, run_ms, hold_ms);
		return -EINVAL;
	}
	idle_ns = (u64)idle_ms * NSEC_PER_MSEC;
	prandom_seed_state(&rx_rnd, seed);

	idle_q = dwq_queue_create("idle", 1, 0);
	if (IS_ERR(idle_q))
		return PTR_ERR(idle_q);
	/* Room for every connection's task: no dwq_mod() fails -ENOSPC. */
	err = dwq_queue_reserve(idle_q, conns);
	if (err)
		goto err_queue;
	conn_table = kcalloc(conns, sizeof(*conn_table), GFP_KERNEL);
	if (!conn_table) {
		err = -ENOMEM;
		goto err_queue;
	}
	start_ns = ktime_get_ns();
	for (i = 0; i < conns; i++) {
		err = conn_open(i);
		if (err)
			goto err_conns;
	}

	dbg_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0400, dbg_dir, NULL, &stats_fops);
	debugfs_create_file("conns", 0400, dbg_dir, NULL, &conns_fops);

	hrtimer_setup(&rx_timer, rx_tick, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
	hrtimer_start(&rx_timer, ns_to_ktime(RX_TICK_NS),
		      HRTIMER_MODE_REL_SOFT);
	return 0;

err_conns:
	conns_close(i);
err_queue:
	dwq_queue_destroy(idle_q, DWQ_DESTROY_DROP);
	return err;
}

static void __exit idle_timeout_exit(void)
{
	/* Waits for readers: nothing looks at the table after this. */
	debugfs_remove_recursive(dbg_dir);
	/* Waits for a running tick: no packet or FIN comes after this. */
	hrtimer_cancel(&rx_timer);
	conns_close(conns);
	dwq_queue_destroy(idle_q, DWQ_DESTROY_DROP);
}

module_init(idle_timeout_init);
module_exit(idle_timeout_exit);
MODULE_DESCRIPTION("dwq sample: per-connection idle timeouts");
MODULE_LICENSE("GPL");
