/* The policy floor's profiles, ordered by strictness: the operator picks
 * the default, an annotation (run.sbrun.policy) may only pick a stricter
 * one. Shared by spec/ (the floor merge) and runtime/ (the floor seccomp
 * filter it installs). */
#ifndef SB_SPEC_POLICY_PROFILE_H
#define SB_SPEC_POLICY_PROFILE_H

enum policy_profile {
        POLICY_STANDARD = 1, /* ordinary podman/containerd containers */
        POLICY_STRICT = 2,   /* untrusted code: allow-list seccomp, no network, ceilings */
};

#endif
