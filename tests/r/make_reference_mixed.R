# Reference values for tests/unit/test_stats_mixed_lme4.py: linear mixed models with
# crossed random intercepts for subjects and items, computed with lme4 and lmerTest.
#
# Re-run from the repository root (needs R >= 4.2 with lme4, lmerTest and jsonlite;
# on Debian: apt-get install r-base-core r-cran-lme4 r-cran-lmertest r-cran-jsonlite):
#
#     Rscript tests/r/make_reference_mixed.R
#
# It (re)writes three data sets, tests/data/r_reference/mixed_{unbalanced,sparse,
# singular}.csv (made here from set.seed(), values rounded so that the CSV round-trips
# exactly), and R's results in tests/data/r_reference/mixed.json, which records the
# R and package versions. The Python tests read both, so CI does not need R.
#
# Every model is fitted twice: with lmer's defaults (what users of lme4 publish) and
# with a much tighter optimiser tolerance ("tight"), so that the tests can tell the
# optimiser's own tolerance apart from a difference in what is computed.

suppressPackageStartupMessages({
  library(lme4)
  library(lmerTest)
  library(jsonlite)
})

out_dir <- file.path("tests", "data", "r_reference")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

write_data <- function(df, name) {
  write.csv(df, file.path(out_dir, paste0(name, ".csv")), row.names = FALSE, quote = TRUE)
  # read back, so that R computes on exactly what Python reads
  read.csv(file.path(out_dir, paste0(name, ".csv")), stringsAsFactors = TRUE)
}

tight <- lmerControl(optimizer = "nloptwrap",
                     optCtrl = list(xtol_abs = 1e-14, ftol_abs = 1e-15,
                                    xtol_rel = 1e-14, ftol_rel = 1e-15, maxeval = 1e5))

# ---------------------------------------------------------------- data sets

sys_r <- c(A = 0, B = 4, C = -3, D = 6)
sys_t <- c(A = 0, B = -0.10, C = 0.05, D = -0.15)

# Unbalanced: 12 subjects x 24 items, 4 systems in a Latin square, then about 30% of
# the trials lost (subject-specific rates), so cells and subjects differ in size.
set.seed(20240518)
subj_eff <- rnorm(12, 0, 6); item_eff <- rnorm(24, 0, 4)
grid <- expand.grid(item = 1:24, subject = 1:12)
grid$system <- c("A", "B", "C", "D")[((grid$subject + grid$item) %% 4) + 1]
keep_rate <- runif(12, 0.45, 0.95)
grid <- grid[runif(nrow(grid)) < keep_rate[grid$subject], ]
unbalanced <- data.frame(
  subject = sprintf("s%02d", grid$subject), item = sprintf("i%02d", grid$item),
  system = grid$system,
  rating = round(60 + sys_r[grid$system] + subj_eff[grid$subject] +
                   item_eff[grid$item] + rnorm(nrow(grid), 0, 5), 2),
  time_ms = round(exp(log(3000) + sys_t[grid$system] + 0.02 * subj_eff[grid$subject] +
                        0.03 * item_eff[grid$item] + rnorm(nrow(grid), 0, 0.15)))
)
unbalanced <- write_data(unbalanced, "mixed_unbalanced")

# Sparse crossed: 40 subjects and 60 items, each subject rates 4 to 12 random items
# with a random one of 3 systems: most subject x item cells are empty, many items
# are rated once or twice, and the systems are not balanced over subjects or items.
set.seed(7031)
subj_eff <- rnorm(40, 0, 5); item_eff <- rnorm(60, 0, 3)
sparse <- do.call(rbind, lapply(1:40, function(s) {
  items <- sort(sample(1:60, sample(4:12, 1)))
  data.frame(subject = s, item = items, system = sample(c("A", "B", "C"), length(items),
                                                        replace = TRUE))
}))
sparse$rating <- round(50 + c(A = 0, B = 3, C = -2)[sparse$system] +
                         subj_eff[sparse$subject] + item_eff[sparse$item] +
                         rnorm(nrow(sparse), 0, 4), 2)
sparse$subject <- sprintf("p%02d", sparse$subject)
sparse$item <- sprintf("t%02d", sparse$item)
sparse <- write_data(sparse, "mixed_sparse")

# Singular: no item effect in the data; the first seed (from 1) whose REML fit puts
# the item variance on the boundary (lme4::isSingular) is kept.
make_singular <- function(seed) {
  set.seed(seed)
  subj_eff <- rnorm(6, 0, 3)
  g <- expand.grid(item = 1:8, subject = 1:6)
  g$system <- c("A", "B")[((g$subject + g$item) %% 2) + 1]
  data.frame(subject = sprintf("s%d", g$subject), item = sprintf("i%d", g$item),
             system = g$system,
             rating = round(20 + 2 * (g$system == "B") + subj_eff[g$subject] +
                              rnorm(nrow(g), 0, 2), 2))
}
seed <- 1
repeat {
  singular <- write_data(make_singular(seed), "mixed_singular")
  m <- lme4::lmer(rating ~ 0 + system + (1 | subject) + (1 | item), data = singular,
                  REML = TRUE)
  if (isSingular(m) && getME(m, "theta")[["subject.(Intercept)"]] > 0.1) break
  seed <- seed + 1
}
singular_seed <- seed

# ---------------------------------------------------------------- fits

fit_one <- function(formula, data, reml) {
  one <- function(control) {
    m <- lme4::lmer(formula, data = data, REML = reml, control = control)
    mt <- lmerTest::lmer(formula, data = data, REML = reml, control = control)
    co <- summary(mt)$coefficients
    # Satterthwaite t intervals of each coefficient (lmerTest::contest, 95%)
    ci <- do.call(rbind, lapply(seq_len(nrow(co)), function(j) {
      L <- diag(nrow(co))[j, ]
      as.data.frame(contest(mt, L, joint = FALSE, confint = TRUE, level = 0.95))
    }))
    vc <- as.data.frame(VarCorr(m))
    v <- as.matrix(vcov(m))
    list(term = rownames(co),
         estimate = unname(fixef(m)),
         se = unname(sqrt(diag(v))),
         vcov = unname(v),
         vc_group = vc$grp, vc_var = vc$vcov,
         theta = unname(getME(m, "theta")),
         theta_names = names(getME(m, "theta")),
         sigma = sigma(m),
         loglik = as.numeric(logLik(m)),
         reml_crit = REMLcrit(m),
         singular = isSingular(m),
         lmertest_estimate = unname(co[, "Estimate"]),
         lmertest_se = unname(co[, "Std. Error"]),
         df = unname(co[, "df"]),
         t = unname(co[, "t value"]),
         p = unname(co[, "Pr(>|t|)"]),
         ci_low = ci$lower, ci_high = ci$upper)
  }
  list(formula = paste(deparse(formula), collapse = " "), REML = reml,
       default = suppressMessages(one(lmerControl())),
       tight = suppressMessages(one(tight)))
}

ref <- list(
  versions = list(R = R.version.string,
                  lme4 = as.character(packageVersion("lme4")),
                  lmerTest = as.character(packageVersion("lmerTest")),
                  numDeriv = as.character(packageVersion("numDeriv")),
                  nloptr = as.character(packageVersion("nloptr")),
                  Matrix = as.character(packageVersion("Matrix")),
                  jsonlite = as.character(packageVersion("jsonlite"))),
  mixed_unbalanced = list(
    rating_means = fit_one(rating ~ 0 + system + (1 | subject) + (1 | item), unbalanced, TRUE),
    rating_treatment = fit_one(rating ~ system + (1 | subject) + (1 | item), unbalanced, TRUE),
    logtime_means = fit_one(log(time_ms) ~ 0 + system + (1 | subject) + (1 | item),
                            unbalanced, TRUE),
    rating_means_ml = fit_one(rating ~ 0 + system + (1 | subject) + (1 | item), unbalanced,
                              FALSE)
  ),
  mixed_sparse = list(
    rating_means = fit_one(rating ~ 0 + system + (1 | subject) + (1 | item), sparse, TRUE),
    rating_treatment = fit_one(rating ~ system + (1 | subject) + (1 | item), sparse, TRUE)
  ),
  mixed_singular = list(
    seed = singular_seed,
    rating_means = fit_one(rating ~ 0 + system + (1 | subject) + (1 | item), singular, TRUE)
  )
)

json <- toJSON(ref, auto_unbox = TRUE, digits = NA, pretty = TRUE)
writeLines(json, file.path(out_dir, "mixed.json"), useBytes = TRUE)
cat("wrote", file.path(out_dir, "mixed.json"), "\n")
