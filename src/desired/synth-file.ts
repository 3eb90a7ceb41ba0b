/** The file cdktf synth writes beside each stack's cdk.tf.json: the stack's documents as a JSON array. */
export const SYNTH_DESIRED_FILE = "converge.desired.json";
