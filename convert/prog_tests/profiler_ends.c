// SPDX-License-Identifier: GPL-2.0
/* Where the profiler's programs end, in the tree's three builds
 * (profiler1-3) and their conversions to assertions (profiler1-3_assert):
 * the tree's test sees only a return value, 0 wherever a program ends,
 * the exception callback's too.  Each program's statistics in
 * bpf_func_stats tell more: bpf_stats_exit() at its end adds the time
 * spent, which a throw skips.
 *  - The exec program on the tree's test's args runs to its end, and
 *    counts one run and one perf event.
 *  - The exit program on a kill record of the current process runs to
 *    its end and deletes the record; on one whose payload length is past
 *    the bound it ends at once (the conversion by a throw): no time, no
 *    perf event, the record kept.
 */
#include <test_progs.h>
#include "progs/profiler.h"
#include "profiler1.skel.h"
#include "profiler2.skel.h"
#include "profiler3.skel.h"
#include "profiler1_assert.skel.h"
#include "profiler2_assert.skel.h"
#include "profiler3_assert.skel.h"

#define KILL_DATA_ARRAY_SIZE 8	/* profiler.inc.h's */

/* A program's statistics, summed over the CPUs, after one run */
static bool run_stats(struct bpf_object *obj, const char *prog_name, __u32 func_id,
		      struct bpf_func_stats_data *sum)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "bpf_func_stats"));
	int i, ncpus = libbpf_num_possible_cpus();
	struct bpf_func_stats_data *per_cpu = calloc(ncpus, sizeof(*per_cpu));
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, prog_name);
	__u64 args[] = {1, 2, 3};
	LIBBPF_OPTS(bpf_test_run_opts, topts, .ctx_in = args, .ctx_size_in = sizeof(args));
	bool ok = false;

	if (!ASSERT_OK_PTR(per_cpu, "calloc") || !ASSERT_OK_PTR(prog, prog_name))
		goto out;
	if (!ASSERT_OK(bpf_map_update_elem(fd, &func_id, per_cpu, 0), "reset stats") ||
	    !ASSERT_OK(bpf_prog_test_run_opts(bpf_program__fd(prog), &topts), "test_run") ||
	    !ASSERT_EQ(topts.retval, 0, "retval") ||
	    !ASSERT_OK(bpf_map_lookup_elem(fd, &func_id, per_cpu), "read stats"))
		goto out;
	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < ncpus; i++) {
		sum->time_elapsed_ns += per_cpu[i].time_elapsed_ns;
		sum->num_executions += per_cpu[i].num_executions;
		sum->num_perf_events += per_cpu[i].num_perf_events;
	}
	ok = ASSERT_EQ(sum->num_executions, 1, "runs");
out:
	free(per_cpu);
	return ok;
}

/* The exit program on a kill record of the current process with
 * @payload_length; whether it is to end at once
 */
static void run_exit(struct bpf_object *obj, size_t payload_length, bool ends_early)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "var_tpid_to_data"));
	struct var_kill_data_t *arr = calloc(KILL_DATA_ARRAY_SIZE, sizeof(*arr));
	struct bpf_func_stats_data st;
	__u32 pid = getpid();

	if (!ASSERT_OK_PTR(arr, "calloc"))
		return;
	arr[0].kill_target_pid = pid;
	arr[0].payload_length = payload_length;
	if (!ASSERT_OK(bpf_map_update_elem(fd, &pid, arr, 0), "add kill record") ||
	    !run_stats(obj, "raw_tracepoint__sched_process_exit",
		       profiler_bpf_sched_process_exit, &st))
		goto out;
	if (ends_early) {
		ASSERT_EQ(st.time_elapsed_ns, 0, "time past the bound");
		ASSERT_EQ(st.num_perf_events, 0, "perf events past the bound");
		ASSERT_OK(bpf_map_lookup_elem(fd, &pid, arr), "record kept");
	} else {
		ASSERT_GT(st.time_elapsed_ns, 0, "time");
		ASSERT_EQ(st.num_perf_events, 1, "perf events");
		ASSERT_ERR(bpf_map_lookup_elem(fd, &pid, arr), "record deleted");
	}
out:
	bpf_map_delete_elem(fd, &pid);
	free(arr);
}

static void run_obj(const char *name, struct bpf_object *obj)
{
	struct bpf_func_stats_data st;

	if (!test__start_subtest(name))
		return;
	if (run_stats(obj, "raw_tracepoint__sched_process_exec",
		      profiler_bpf_sched_process_exec, &st)) {
		ASSERT_GT(st.time_elapsed_ns, 0, "exec: time");
		ASSERT_EQ(st.num_perf_events, 1, "exec: perf events");
	}
	run_exit(obj, 0, false);
	run_exit(obj, MAX_METADATA_PAYLOAD_LEN + MAX_CGROUP_PAYLOAD_LEN - 1, false);
	run_exit(obj, MAX_METADATA_PAYLOAD_LEN + MAX_CGROUP_PAYLOAD_LEN, true);
}

#define RUN(skel)							\
	do {								\
		struct skel *s = skel##__open_and_load();		\
									\
		if (ASSERT_OK_PTR(s, #skel))				\
			run_obj(#skel, s->obj);				\
		skel##__destroy(s);					\
	} while (0)

void test_profiler_ends(void)
{
	RUN(profiler1);
	RUN(profiler2);
	RUN(profiler3);
	RUN(profiler1_assert);
	RUN(profiler2_assert);
	RUN(profiler3_assert);
}
