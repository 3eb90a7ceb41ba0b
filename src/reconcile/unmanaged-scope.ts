/**
 * What `unmanaged` may mean in a drift run (`converge drift --unmanaged`): undeclared children of the
 * APIs a document owns, or every live resource read. A module of its own, importing nothing, so
 * that the command line names the choices without loading the reconciler.
 */
export const UNMANAGED_SCOPES = ["owned", "all"] as const;

export type UnmanagedScope = (typeof UNMANAGED_SCOPES)[number];
