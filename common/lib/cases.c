/* The tables of lib/cases.def, as the suite's arrays (pure data). */
#include "suite.h"

const struct axis_row group_rows[N_CASE_GROUP] = {
#define GROUP(id, name, short_name, mount) [id] = { name, 0 },
#include "cases.def"
};
const char *const group_names[N_CASE_GROUP] = {
#define GROUP(id, name, short_name, mount) [id] = name,
#include "cases.def"
};
const char *const group_short[N_CASE_GROUP] = {
#define GROUP(id, name, short_name, mount) [id] = short_name,
#include "cases.def"
};
const unsigned group_mount[N_CASE_GROUP] = {
#define GROUP(id, name, short_name, mount) [id] = mount,
#include "cases.def"
};
const char *const mount_names[N_MOUNT] = {
#define MOUNT(id, name, dir) [id] = name,
#include "cases.def"
};
const char *const mount_dirs[N_MOUNT] = {
#define MOUNT(id, name, dir) [id] = dir,
#include "cases.def"
};
const char *const owner_names[N_OWN] = {
#define OWNER(id, name, uid, flags) [id] = name,
#include "cases.def"
};
const unsigned owner_ids[N_OWN] = {
#define OWNER(id, name, uid, flags) [id] = uid,
#include "cases.def"
};
const unsigned owner_flags[N_OWN] = {
#define OWNER(id, name, uid, flags) [id] = flags,
#include "cases.def"
};
const struct dir_row dir_rows[N_DIRMODE] = {
#define DIRMODE(mode, flags) { mode, 0, flags },
#include "cases.def"
};
const unsigned dir_modes[N_DIRMODE] = {
#define DIRMODE(mode, flags) mode,
#include "cases.def"
};
const struct dir_row rep_dirs[N_REPDIR] = {
#define REPDIR(mode, owner, flags) { mode, owner, flags },
#include "cases.def"
};
const struct target_row targets[N_TARGET] = {
#define TARGET(id, name, file, node, mode, owner, chown_to, flags) \
	[id] = { name, file, node, mode, owner, chown_to, flags },
#include "cases.def"
};
const char *const target_names[N_TARGET] = {
#define TARGET(id, name, ...) [id] = name,
#include "cases.def"
};
const char *const follower_names[N_FOLLOWER] = {
#define FOLLOWER(id, name, ...) [id] = name,
#include "cases.def"
};
const struct follower_ids follower_ids[N_FOLLOWER] = {
#define FOLLOWER(id, name, ruid, euid, suid, fsuid, flags) [id] = { ruid, euid, suid, fsuid },
#include "cases.def"
};
const unsigned follower_flags[N_FOLLOWER] = {
#define FOLLOWER(id, name, ruid, euid, suid, fsuid, flags) [id] = flags,
#include "cases.def"
};
const struct position_row positions[N_POS] = {
#define POSITION(id, n, s, k, t, d1, d2, o2, ctl, f) \
	[id] = { .name = n, .short_name = s, .kind = k, .target = t, .dir1 = d1, .dir2 = d2, \
		 .flags = f, .owner2 = o2 },
#include "cases.def"
};
const char *const position_names[N_POS] = {
#define POSITION(id, name, ...) [id] = name,
#include "cases.def"
};
const char *const position_short[N_POS] = {
#define POSITION(id, name, short_name, ...) [id] = short_name,
#include "cases.def"
};
const struct op_info op_info[N_OP] = {
#define OP(id, n, t, lk, ctl, f) \
	[id] = { .name = n, .target = t, .on_link = lk, .nofollow = lk != LK_FOLLOWS, .flags = f },
#include "cases.def"
};
const struct mount_case mount_cases[N_MOUNTCASE] = {
#define MOUNTCASE(position, op, target) { position, op, target },
#include "cases.def"
};
const struct setting_row setting_rows[N_SETTING_ROW] = {
#define SETTING(ps, own) { ps, own },
#include "cases.def"
};
