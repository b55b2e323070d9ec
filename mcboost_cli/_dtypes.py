"""Array dtypes shared by every layer, defined once (as scikit-learn's ``common.pxd``)."""

import numpy as np

X_DTYPE = np.float64          # raw features; categorical columns hold integer codes; NaN = missing
X_BINNED_DTYPE = np.uint8     # binned features: at most 255 value bins + 1 missing-value bin
Y_DTYPE = np.int32            # encoded labels 0..K-1
WEIGHT_DTYPE = np.float64     # sample (or sample-label) weights
SCORE_DTYPE = np.float64      # running score matrices F(x, k)
HIST_DTYPE = np.float64       # histogram accumulators
INDEX_DTYPE = np.int32        # sample indices, node indices

MAX_BINS = 255                # value bins; bin 255 is reserved for missing values
MISSING_BIN = 255
