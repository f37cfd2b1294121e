/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The F1 loops for one copy of dwq's heap, included by f1_dwq.c once per
 * variant with F1_PREFIX set to its prefix (see heap_variants.h), after
 * the variant's inline operations (F1_PREFIX_insert_inline() and so on).
 * No include guard: that is the point.
 */
#define F1_CAT2(a, b) a##b
#define F1_CAT(a, b) F1_CAT2(a, b)
#define F1_HEAP(name) F1_CAT(F1_PREFIX, name)
#define f1_heap F1_HEAP(_heap)
#define f1_insert F1_HEAP(_insert_inline)
#define f1_remove F1_HEAP(_remove_inline)
#define f1_pop F1_HEAP(_pop_inline)

static int F1_HEAP(_f1_setup)(struct f1_run *r)
{
	struct f1_dwq *s;
	unsigned int i;
	int err;

	s = f1_dwq_alloc(r);
	if (!s)
		return -ENOMEM;
	s->heap = F1_HEAP(_create)(r->n + 1);
	if (!s->heap) {
		f1_dwq_free(s);
		return -ENOMEM;
	}
	for (i = 0; i < r->n; i++) {
		err = f1_insert(s->heap, &s->nodes[i], r->fill[i]);
		if (err) {
			F1_HEAP(_destroy)(s->heap);
			f1_dwq_free(s);
			return err;
		}
		if (!(i % 4096))
			cond_resched();
	}
	r->priv = s;
	return 0;
}

static void F1_HEAP(_f1_pairs)(struct f1_run *r)
{
	struct f1_dwq *s = r->priv;
	struct f1_heap *heap = s->heap;
	unsigned long flags;
	u32 spare = r->spare, v;
	unsigned int i;

	for (i = 0; i < r->pairs; i++) {
		spin_lock_irqsave(&r->lock, flags);
		f1_insert(heap, &s->nodes[spare], r->keys[i]);
		spin_unlock_irqrestore(&r->lock, flags);
		v = r->victims[i];
		spin_lock_irqsave(&r->lock, flags);
		f1_remove(heap, &s->nodes[v]);
		spin_unlock_irqrestore(&r->lock, flags);
		spare = v;
	}
	r->spare = spare;
}

static s64 F1_HEAP(_f1_pops)(struct f1_run *r, unsigned int k)
{
	struct f1_dwq *s = r->priv;
	struct f1_heap *heap = s->heap;
	struct dwq_heap_node *node;
	unsigned long flags;
	unsigned int i;
	u64 t0, t1;

	t0 = ktime_get_ns();
	for (i = 0; i < k; i++) {
		spin_lock_irqsave(&r->lock, flags);
		node = f1_pop(heap);
		spin_unlock_irqrestore(&r->lock, flags);
		r->popped[i] = node - s->nodes;
	}
	t1 = ktime_get_ns();
	for (i = 0; i < k; i++)
		f1_insert(heap, &s->nodes[r->popped[i]], r->refill[i]);
	return t1 - t0;
}

static void F1_HEAP(_f1_teardown)(struct f1_run *r)
{
	struct f1_dwq *s = r->priv;

	F1_HEAP(_destroy)(s->heap);
	f1_dwq_free(s);
	r->priv = NULL;
}

#undef f1_pop
#undef f1_remove
#undef f1_insert
#undef f1_heap
#undef F1_HEAP
#undef F1_CAT
#undef F1_CAT2
