import { CliError } from "../cli-error.js";
import { documentsToDelete } from "../document-env.js";
import { inventoryAsAbsent, loadSynthStack } from "../synth-stack.js";
import { applyDocuments, type ApplyFlags } from "./apply-command.js";

export interface DeleteFlags extends Omit<ApplyFlags, "file" | "target" | "prune" | "repairTwins" | "fromSynth" | "expectSha256Env" | "previousEnv"> {
  readonly documentEnv?: string;
  /** An environment variable listing documents to leave alone (the cdktf stack's current identities). */
  readonly keepEnv?: string;
  /** A cdktf stack's directory: delete everything its desired state makes exist (`cdktf destroy`). */
  readonly fromSynth?: string;
  readonly expectSha256Env?: string;
}

/**
 * `converge delete --document-env VAR`: plans the documents held in VAR as `ensure: absent` and
 * applies that plan (asking first, unless --auto-approve). Deleting what is already absent is a
 * no-op; the protections still refuse what is unsafe. Exit 0 when nothing of it remains, 1 otherwise.
 */
export async function deleteCommand(flags: DeleteFlags): Promise<number> {
  if ((flags.documentEnv === undefined) === (flags.fromSynth === undefined)) {
    throw new CliError("pass one of --document-env VAR (the documents to delete, as JSON) "
      + "or --from-synth DIR (everything a cdktf stack's desired state makes exist)");
  }
  if (flags.fromSynth === undefined && flags.expectSha256Env !== undefined) throw new CliError("--expect-sha256-env goes with --from-synth DIR");
  const documents = flags.fromSynth !== undefined
    ? inventoryAsAbsent((await loadSynthStack({ fromSynth: flags.fromSynth, expectSha256Env: flags.expectSha256Env })).inventory, "inventory")
    : documentsToDelete(flags.documentEnv!, flags.keepEnv);
  if (documents.length === 0) {
    process.stdout.write("Nothing to delete.\n");
    return 0;
  }
  return applyDocuments(documents, { ...flags, prune: false, repairTwins: false });
}
