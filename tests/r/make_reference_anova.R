# Reference values for tests/unit/test_stats_anova_r.py, computed with R:
# two-way ANOVA with empty cells (Type I in both factor orders, car::Anova type 2,
# the error term, Type III's dependence on the contrasts), TukeyHSD oriented as R
# prints it, and R's ptukey on a grid of (q, k, df).
#
# Re-run from the repository root (needs R >= 4.2 with the car and jsonlite
# packages; on Debian: apt-get install r-base-core r-cran-car r-cran-jsonlite):
#
#     Rscript tests/r/make_reference_anova.R
#
# It (re)writes tests/data/r_reference/anova_empty_one.csv, anova_empty_two.csv,
# tukey_many.csv (deterministic: fixed seeds, values rounded to one decimal so
# that the CSV round-trips exactly) and R's results in
# tests/data/r_reference/anova.json, which records the R and package versions.

suppressPackageStartupMessages({
  library(car)
  library(jsonlite)
})

# Factor levels sort as Python sorts strings (the tests compare level by level).
invisible(Sys.setlocale("LC_COLLATE", "C"))

out_dir <- file.path("tests", "data", "r_reference")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

write_data <- function(df, name) {
  write.csv(df, file.path(out_dir, paste0(name, ".csv")), row.names = FALSE, quote = TRUE)
  # read back, so that R computes on exactly what Python reads
  read.csv(file.path(out_dir, paste0(name, ".csv")), stringsAsFactors = TRUE)
}

# ---------------------------------------------------------------- data sets

# An unbalanced 4 systems x 3 domains design (cell sizes 2-7) with an interaction;
# then the same data without cell C x z (one empty cell) and without cells C x z
# and A x x (two empty cells).
set.seed(1804)
grid <- expand.grid(domain = c("x", "y", "z"), system = c("A", "B", "C", "D"),
                    stringsAsFactors = FALSE)
sizes <- c(3, 5, 2, 6, 4, 7, 2, 5, 3, 4, 6, 3)
sys_eff <- c(A = 50, B = 54, C = 47, D = 58)
dom_eff <- c(x = 3, y = 0, z = -3)
full <- do.call(rbind, lapply(seq_len(nrow(grid)), function(i) {
  s <- grid$system[i]; d <- grid$domain[i]; n <- sizes[i]
  inter <- if (s == "B" && d == "y") 5 else if (s == "D" && d == "x") -4 else 0
  data.frame(system = s, domain = d,
             y = round(sys_eff[[s]] + dom_eff[[d]] + inter + rnorm(n, 0, 4), 1))
}))
one <- write_data(full[!(full$system == "C" & full$domain == "z"), ], "anova_empty_one")
two <- write_data(
  full[!((full$system == "C" & full$domain == "z") |
           (full$system == "A" & full$domain == "x")), ],
  "anova_empty_two"
)

# 25 systems x 2 domains, 3-5 observations per cell: TukeyHSD with 300 pairs.
set.seed(20260)
many_grid <- expand.grid(domain = c("furniture", "people"),
                         system = sprintf("sys%02d", 1:25), stringsAsFactors = FALSE)
many_eff <- setNames(round(rnorm(25, 60, 3), 1), sprintf("sys%02d", 1:25))
many <- do.call(rbind, lapply(seq_len(nrow(many_grid)), function(i) {
  s <- many_grid$system[i]; d <- many_grid$domain[i]; n <- 3 + (i %% 3)
  data.frame(system = s, domain = d,
             y = round(many_eff[[s]] + (d == "people") * 2 + rnorm(n, 0, 5), 1))
}))
many <- write_data(many, "tukey_many")

# ---------------------------------------------------------------- helpers

anova_table <- function(a) {
  rn <- trimws(rownames(a))
  keep <- rn != "(Intercept)"
  f <- if ("F value" %in% names(a)) a[["F value"]] else a[["F values"]]
  list(term = rn[keep], ss = a[["Sum Sq"]][keep], df = a[["Df"]][keep],
       f = f[keep], p = a[["Pr(>F)"]][keep])
}
drop1_table <- function(fit) {
  a <- drop1(fit, . ~ ., test = "F")
  keep <- trimws(rownames(a)) != "<none>"
  list(term = trimws(rownames(a))[keep], ss = a[["Sum of Sq"]][keep],
       df = a[["Df"]][keep], f = a[["F value"]][keep], p = a[["Pr(>F)"]][keep])
}
tukey_table <- function(fit, which) {
  t <- TukeyHSD(fit, which)[[which]]
  list(pair = rownames(t), diff = unname(t[, "diff"]), lwr = unname(t[, "lwr"]),
       upr = unname(t[, "upr"]), p = unname(t[, "p adj"]))
}
empty_cells <- function(df) {
  tab <- table(df$system, df$domain)
  idx <- which(tab == 0, arr.ind = TRUE)
  paste(rownames(tab)[idx[, 1]], colnames(tab)[idx[, 2]], sep = " x ")
}
with_empty_cells <- function(df) {
  seqfit <- lm(y ~ system * domain, data = df)
  revfit <- lm(y ~ domain * system, data = df)
  sumfit <- lm(y ~ system * domain, data = df,
               contrasts = list(system = contr.sum, domain = contr.sum))
  trtfit <- lm(y ~ system * domain, data = df,
               contrasts = list(system = contr.treatment, domain = contr.treatment))
  list(
    empty_cells = empty_cells(df),
    n_aliased = sum(is.na(coef(seqfit))),
    type1 = anova_table(anova(seqfit)),
    type1_domain_first = anova_table(anova(revfit)),
    type2 = anova_table(suppressMessages(car::Anova(sumfit, type = 2))),
    # Type III as "drop the term's columns from the full model" depends on the
    # contrasts once a cell is empty (why stecflow refuses Type III here); car
    # refuses type 3 with aliased coefficients unless told singular.ok = TRUE
    type3_drop1_sum = drop1_table(sumfit),
    type3_drop1_treatment = drop1_table(trtfit),
    type3_car_singular_ok = anova_table(
      suppressMessages(car::Anova(sumfit, type = 3, singular.ok = TRUE))
    ),
    mse = deviance(seqfit) / df.residual(seqfit),
    df_resid = df.residual(seqfit),
    tukey_system_twoway = tukey_table(aov(y ~ system * domain, data = df), "system")
  )
}

# ---------------------------------------------------------------- results

ref <- list()
ref$meta <- list(
  r_version = R.version.string,
  car = as.character(packageVersion("car")),
  jsonlite = as.character(packageVersion("jsonlite"))
)
ref$anova_empty_one <- with_empty_cells(one)
ref$anova_empty_two <- with_empty_cells(two)

ref$tukey_many <- local({
  fit <- aov(y ~ system * domain, data = many)
  list(mse = deviance(fit) / df.residual(fit), df_resid = df.residual(fit),
       tukey_system_twoway = tukey_table(fit, "system"),
       tukey_system_oneway = tukey_table(aov(y ~ system, data = many), "system"))
})

# R's ptukey (upper tail, as TukeyHSD uses it) on a grid covering every branch of
# its algorithm: df <= 100, <= 800, <= 5000, <= 25000 (four interval lengths) and
# df > 25000 (the range distribution), k from 2 to 1000, p from 1 to below 1e-12.
ref$ptukey <- local({
  g <- expand.grid(q = c(0.3, 1, 2, 2.5, 3, 3.6, 4.2, 5, 6, 7, 8.5, 10, 13, 16.5, 25),
                   k = c(2, 3, 5, 10, 40, 200, 1000),
                   df = c(2, 5, 12, 60, 100, 101, 450, 800, 801, 2000, 5000, 5001,
                          12000, 25000, 25001, 1e5))
  g$p <- ptukey(g$q, g$k, g$df, lower.tail = FALSE)
  list(q = g$q, k = g$k, df = g$df, p = g$p)
})

json <- toJSON(ref, auto_unbox = TRUE, digits = NA, pretty = TRUE)
writeLines(json, file.path(out_dir, "anova.json"), useBytes = TRUE)
cat("wrote", file.path(out_dir, "anova.json"), "\n")
