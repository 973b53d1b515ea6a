# Power analysis of the studies whose config has `power` (README "Planning a study").


# code: stecflow.analysis.power.run_power and write_power, the figure stecflow.report.power.power_svg (via workflow/scripts/power_analysis.py)
rule power:
    """Power per participant number, session duration and pay of one study."""
    input:
        get_power_inputs,
    output:
        table=f"{RESULTS}/power/{{study}}.tsv",
        settings=f"{RESULTS}/power/{{study}}.json",
        plot=f"{RESULTS}/power/{{study}}.svg",
    log:
        f"{RESULTS}/logs/power/{{study}}.log",
    priority: PRIORITY["power"]
    resources:
        # Small frames, one at a time; 200 runs x 4 sizes take about 1-2 min.
        mem_mb=500,
        runtime=30,
    params:
        studies=lambda wildcards: [STUDIES[wildcards.study]],
    script:
        "../scripts/power_analysis.py"
