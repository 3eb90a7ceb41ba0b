import type { BenchExperiment } from "../experiment.js";
import { buildsCompared } from "./builds-compared.js";
import { cdktfApply } from "./cdktf-apply.js";
import { cliExecutable } from "./cli-executable.js";
import { cliOnNode } from "./cli-on-node.js";
import { clientVsAutocannon } from "./client-vs-autocannon.js";
import { controlInterface } from "./control-interface.js";
import { driftEstate } from "./drift-estate.js";
import { driftState } from "./drift-state.js";
import { exportTerraform } from "./export-terraform.js";
import { htmlReport } from "./html-report.js";
import { nestingScan } from "./nesting-scan.js";
import { reconcileEstate } from "./reconcile-estate.js";
import { reconcileLoop } from "./reconcile-loop.js";
import { terraformProvider } from "./terraform-provider.js";
import { validateEstate } from "./validate-estate.js";
import { validateVariables } from "./validate-variables.js";

/** Every comparison benchmark, in the order they run after the load cases. */
export const BENCH_EXPERIMENTS: ReadonlyArray<BenchExperiment> = [clientVsAutocannon, validateEstate, validateVariables, nestingScan, reconcileEstate, reconcileLoop, driftEstate, driftState, htmlReport, cdktfApply, terraformProvider, exportTerraform, buildsCompared, cliExecutable, cliOnNode, controlInterface];
