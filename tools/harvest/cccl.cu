// Library templates (CUB, Thrust) instantiated for several types: what real applications ship.
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

template <typename T> void run(size_t n) {
    thrust::device_vector<T> v(n), w(n);
    thrust::sort(v.begin(), v.end());
    thrust::inclusive_scan(v.begin(), v.end(), w.begin());
    T s = thrust::reduce(w.begin(), w.end());
    thrust::transform(v.begin(), v.end(), w.begin(), v.begin(), thrust::plus<T>());
    void *tmp = nullptr; size_t bytes = 0;
    cub::DeviceRadixSort::SortKeys(tmp, bytes, thrust::raw_pointer_cast(v.data()), thrust::raw_pointer_cast(w.data()), (int)n);
    cub::DeviceReduce::Max(tmp, bytes, thrust::raw_pointer_cast(v.data()), thrust::raw_pointer_cast(w.data()), (int)n);
    cub::DeviceHistogram::HistogramEven(tmp, bytes, thrust::raw_pointer_cast(v.data()), (int *)nullptr, 10, T(0), T(100), (int)n);
    (void)s;
}

int main() {
    run<int>(1000); run<float>(1000); run<double>(1000); run<unsigned long long>(1000); run<short>(1000);
    return 0;
}
