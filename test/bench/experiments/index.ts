import type { BenchExperiment } from "../experiment.js";
import { clientVsAutocannon } from "./client-vs-autocannon.js";
import { reconcileEstate } from "./reconcile-estate.js";

/** Every comparison benchmark, in the order they run after the load cases. */
export const BENCH_EXPERIMENTS: ReadonlyArray<BenchExperiment> = [clientVsAutocannon, reconcileEstate];
