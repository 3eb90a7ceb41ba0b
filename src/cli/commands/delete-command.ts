import { CliError } from "../cli-error.js";
import { documentsToDelete } from "../document-env.js";
import { applyDocuments, type ApplyFlags } from "./apply-command.js";

export interface DeleteFlags extends Omit<ApplyFlags, "file" | "target" | "prune" | "repairTwins"> {
  readonly documentEnv?: string;
  /** An environment variable listing documents to leave alone (the cdktf stack's current identities). */
  readonly keepEnv?: string;
}

/**
 * `converge delete --document-env VAR`: plans the documents held in VAR as `ensure: absent` and
 * applies that plan (asking first, unless --auto-approve). Deleting what is already absent is a
 * no-op; the protections still refuse what is unsafe. Exit 0 when nothing of it remains, 1 otherwise.
 */
export async function deleteCommand(flags: DeleteFlags): Promise<number> {
  if (flags.documentEnv === undefined) throw new CliError("no documents: pass --document-env VAR, the environment variable holding the documents to delete as JSON");
  const documents = documentsToDelete(flags.documentEnv, flags.keepEnv);
  if (documents.length === 0) {
    process.stdout.write("Nothing to delete.\n");
    return 0;
  }
  return applyDocuments(documents, { ...flags, prune: false, repairTwins: false });
}
